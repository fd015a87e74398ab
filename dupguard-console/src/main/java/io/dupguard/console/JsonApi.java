package io.dupguard.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The JSON API under {@code <base>/api/}: the same reads and actions as the pages (docs/console.md
 * lists them). Reads are GET; actions are POST with form parameters and the CSRF token.
 */
final class JsonApi {
    private final Console console;

    JsonApi(Console console) {
        this.console = console;
    }

    ConsoleResponse handle(ConsoleRequest r, String path) {
        String[] p = path.split("/");
        if (!r.post()) {
            return ConsoleResponse.json(200, read(r, p));
        }
        Object o = act(r, p);
        return ConsoleResponse.json(o instanceof Outcome oc && !oc.changed() ? 409 : 200, o);
    }

    private Object read(ConsoleRequest r, String[] p) {
        String first = p.length > 0 ? p[0] : "";
        switch (first) {
            case "overview" -> {
                return Json.map(
                        "counts", console.counts(),
                        "meters", console.meters(),
                        "scopes", console.scopes(),
                        "locks", console.locks(200).size());
            }
            case "tasks" -> {
                if (p.length == 1) {
                    Page<TaskRow> page = console.tasks(Params.filter(r));
                    List<Object> rows = new ArrayList<>();
                    for (TaskRow t : page.rows()) {
                        rows.add(task(t));
                    }
                    return Json.map("tasks", rows, "next", page.next(), "note", page.note());
                }
                long id = Params.number(p[1], "task id");
                return task(console.task(id).orElseThrow(() -> new NotFoundException("there is no retry task " + id)));
            }
            case "keys" -> {
                if (p.length > 1 && p[1].equals("stuck")) {
                    Page<KeyRow> page = console.stuck(r.param("scope"), r.param("after"), 50);
                    return Json.map(
                            "keys",
                            page.rows().stream().map(JsonApi::key).toList(),
                            "next",
                            page.next(),
                            "note",
                            page.note());
                }
                String scope = ConsoleHandler.required(r, "scope");
                String key = ConsoleHandler.required(r, "key");
                return key(console.key(scope, key)
                        .orElseThrow(() -> new NotFoundException("there is no key '" + key + "' in scope " + scope)));
            }
            case "scopes" -> {
                return Json.map("scopes", console.scopes());
            }
            case "locks" -> {
                Page<LockRow> held = console.lockPage(200);
                return Json.map("locks", held.rows(), "note", held.note());
            }
            case "audit" -> {
                Page<AuditEntry> page =
                        console.audit(r.param("before") == null ? 0 : Params.number(r.param("before"), "before"), 50);
                return Json.map("entries", page.rows(), "next", page.next());
            }
            case "csrf" -> {
                return Json.map(
                        "parameter",
                        r.csrf().parameter(),
                        "header",
                        "X-CSRF-TOKEN",
                        "token",
                        r.csrf().token());
            }
            default -> throw new NotFoundException("no API resource '" + String.join("/", p) + "'");
        }
    }

    private Object act(ConsoleRequest r, String[] p) {
        String first = p.length > 0 ? p[0] : "";
        if (first.equals("tasks") && p.length == 3 && p[1].equals("bulk")) {
            TaskFilter f = Params.bulkFilter(r);
            if (r.param("count") == null || r.param("maxId") == null) {
                TaskActions.Selection s = console.select(p[2], f);
                return Json.map(
                        "changed",
                        false,
                        "count",
                        s.count(),
                        "maxId",
                        s.maxId(),
                        "message",
                        s.count() + " task(s) match; repeat with count and maxId to apply");
            }
            return console.bulk(
                    r.actor(),
                    p[2],
                    f,
                    Params.number(r.param("maxId"), "maxId"),
                    Params.number(r.param("count"), "count"),
                    r.param("reason"));
        }
        if (first.equals("tasks") && p.length == 3) {
            return console.task(
                    r.actor(),
                    p[2],
                    Params.number(p[1], "task id"),
                    Params.version(r.param("version")),
                    Params.payload(r),
                    r.param("reason"));
        }
        if (first.equals("keys") && p.length == 2 && p[1].equals("expire")) {
            return console.forceExpire(
                    r.actor(),
                    ConsoleHandler.required(r, "scope"),
                    ConsoleHandler.required(r, "key"),
                    Params.version(r.param("version")),
                    r.param("reason"));
        }
        if (first.equals("locks") && p.length == 2 && p[1].equals("release")) {
            return console.releaseLock(
                    r.actor(), r.param("provider"), r.param("name"), r.param("owner"), r.param("reason"));
        }
        throw new NotFoundException("no API action '" + String.join("/", p) + "'");
    }

    static Map<String, Object> task(TaskRow t) {
        return Json.map(
                "id", t.id(),
                "type", t.type(),
                "taskKey", t.taskKey(),
                "dedupKey", t.dedupKey(),
                "state", t.state(),
                "attempts", t.attempts(),
                "dueAt", t.dueAt(),
                "lastError", t.lastError(),
                "createdAt", t.createdAt(),
                "updatedAt", t.updatedAt(),
                "version", Params.version(t.updatedAt()),
                "payload", t.payloadSize() < 0 ? null : Display.bytes(t.payload(), t.payloadSize()));
    }

    static Map<String, Object> key(KeyRow k) {
        return Json.map(
                "scope", k.scope(),
                "key", k.key(),
                "status", k.status(),
                "fingerprint", k.fingerprint(),
                "owner", k.owner(),
                "expiresAt", k.expiresAt(),
                "storeNow", k.now(),
                "processed", k.processed(),
                "live", k.live(),
                "stuck", k.stuck(),
                "version", Params.version(k.expiresAt()),
                "decoded", Display.decoded(k.result(), k.resultSize()),
                "result", Display.bytes(k.result(), k.resultSize()));
    }
}

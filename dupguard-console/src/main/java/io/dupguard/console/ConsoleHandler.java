package io.dupguard.console;

import io.dupguard.StoreUnavailableException;
import java.util.Objects;

/**
 * Serves {@link Console} as HTML pages and a JSON API ({@code /api/…}) to any host: the host
 * authenticates, maps the user to an {@link Actor}, checks CSRF and passes a {@link ConsoleRequest}.
 * Every action is a POST that the host verified for CSRF, by an operator, with a reason; anything
 * else is refused with a message and changes nothing.
 */
public final class ConsoleHandler {
    private final Console console;
    private final JsonApi api;
    private final TaskPages tasks;
    private final StorePages stores;

    /**
     * @param console the console to serve; not null
     */
    public ConsoleHandler(Console console) {
        this.console = Objects.requireNonNull(console, "console");
        this.api = new JsonApi(console);
        this.tasks = new TaskPages(console);
        this.stores = new StorePages(console);
    }

    /**
     * Answers one request; never throws for bad input (400, 403, 404, 409 with a message) nor for a
     * store that cannot be reached (503).
     *
     * @param r the request; not null
     * @return the response; never null
     */
    public ConsoleResponse handle(ConsoleRequest r) {
        boolean json = r.path().startsWith("/api/");
        try {
            if (r.post()) {
                if (!r.csrf().verified()) {
                    throw new ForbiddenException(
                            "the form's CSRF token is missing or no longer valid (reload the page);"
                                    + " nothing changed");
                }
                if (!r.actor().operator()) {
                    throw new ForbiddenException(r.actor().name() + " has the viewer role only; actions need the"
                            + " operator role; nothing changed");
                }
            } else if (!"GET".equals(r.method()) && !"HEAD".equals(r.method())) {
                return error(json, r, 405, "method " + r.method() + " is not allowed");
            }
            if (json) {
                return api.handle(r, r.path().substring("/api/".length()));
            }
            if (r.post()) {
                return post(r);
            }
            return ConsoleResponse.html(200, page(r));
        } catch (BadRequestException e) {
            return error(json, r, 400, e.getMessage());
        } catch (ForbiddenException e) {
            return error(json, r, 403, e.getMessage());
        } catch (NotFoundException e) {
            return error(json, r, 404, e.getMessage());
        } catch (StoreUnavailableException e) {
            return error(json, r, 503, e.getMessage());
        }
    }

    /** An action's page: 200 when it changed something, 409 when it changed nothing (the target changed). */
    private ConsoleResponse post(ConsoleRequest r) {
        String[] p = r.path().substring(1).split("/");
        if (p.length == 2 && p[0].equals("tasks") && p[1].equals("bulk")) {
            return ConsoleResponse.html(200, tasks.confirmBulk(r));
        }
        if (p.length == 3 && p[0].equals("tasks") && p[1].equals("bulk") && p[2].equals("apply")) {
            Outcome o = console.bulk(
                    r.actor(),
                    r.param("action"),
                    Params.bulkFilter(r),
                    Params.number(r.param("maxId"), "maxId"),
                    Params.number(r.param("count"), "count"),
                    r.param("reason"));
            return answer(o, tasks.list(r, o));
        }
        if (p.length == 3 && p[0].equals("tasks")) {
            long id = Params.number(p[1], "task id");
            Outcome o = console.task(
                    r.actor(), p[2], id, Params.version(r.param("version")), Params.payload(r), r.param("reason"));
            return answer(o, tasks.task(r, id, o));
        }
        if (p.length == 2 && p[0].equals("keys") && p[1].equals("expire")) {
            requireConfirm(r);
            Outcome o = console.forceExpire(
                    r.actor(),
                    required(r, "scope"),
                    required(r, "key"),
                    Params.version(r.param("version")),
                    r.param("reason"));
            return answer(o, stores.keys(r, o));
        }
        if (p.length == 2 && p[0].equals("locks") && p[1].equals("release")) {
            requireConfirm(r);
            Outcome o = console.releaseLock(
                    r.actor(), r.param("provider"), r.param("name"), r.param("owner"), r.param("reason"));
            return answer(o, stores.locks(r, o));
        }
        throw new NotFoundException("no action at " + r.path());
    }

    private static ConsoleResponse answer(Outcome o, String page) {
        return ConsoleResponse.html(o.changed() ? 200 : 409, page);
    }

    private String page(ConsoleRequest r) {
        String[] p = r.path().substring(1).split("/");
        String first = p[0];
        return switch (first) {
            case "" -> stores.overview(r);
            case "tasks" -> p.length == 1 ? tasks.list(r, null) : tasks.task(r, Params.number(p[1], "task id"), null);
            case "keys" -> p.length > 1 && p[1].equals("stuck") ? stores.stuck(r) : stores.keys(r, null);
            case "locks" -> stores.locks(r, null);
            case "audit" -> stores.audit(r);
            default -> throw new NotFoundException("no page at " + r.path());
        };
    }

    static String required(ConsoleRequest r, String name) {
        String v = r.param(name);
        if (v == null) {
            throw new BadRequestException("give " + name + "; nothing changed");
        }
        return v;
    }

    private static void requireConfirm(ConsoleRequest r) {
        if (r.param("confirm") == null) {
            throw new BadRequestException("confirm that you understand the consequence; nothing changed");
        }
    }

    private static ConsoleResponse error(boolean json, ConsoleRequest r, int status, String message) {
        if (json) {
            return ConsoleResponse.json(status, Json.map("changed", false, "message", message));
        }
        return ConsoleResponse.html(
                status,
                Html.page(
                        r,
                        "",
                        "Nothing changed",
                        "<div class=\"msg no\" id=\"outcome\">" + Html.esc(message) + "</div><p><a href=\""
                                + Html.esc(r.basePath() + "/") + "\">Overview</a></p>"));
    }
}

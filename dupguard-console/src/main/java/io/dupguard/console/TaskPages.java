package io.dupguard.console;

import static io.dupguard.console.Html.esc;

import io.dupguard.retry.TaskState;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/** The retry task pages: the list with its filter and bulk form, a task with its actions, the bulk confirmation. */
final class TaskPages {
    private final Console console;

    TaskPages(Console console) {
        this.console = console;
    }

    String list(ConsoleRequest r, Outcome outcome) {
        TaskFilter f = Params.filter(r);
        Page<TaskRow> page = console.tasks(f);
        StringBuilder b = new StringBuilder();
        if (outcome != null) {
            b.append(Html.message(outcome));
        }
        b.append(counts(r));
        b.append("<form method=\"get\" id=\"filter\" action=\"")
                .append(esc(r.basePath() + "/tasks"))
                .append("\">")
                .append("<label>State <select name=\"state\">");
        String chosen =
                f.state() == null ? (f.search() ? "any" : "BLOCKED") : f.state().name();
        for (String s : new String[] {"BLOCKED", "PENDING", "RUNNING", "CANCELLED", "SUCCEEDED", "any"}) {
            b.append("<option")
                    .append(s.equals(chosen) ? " selected" : "")
                    .append('>')
                    .append(s)
                    .append("</option>");
        }
        b.append("</select></label> ")
                .append(input("type", "Type", f.type()))
                .append(input("taskKey", "Task key", f.taskKey()))
                .append(input("dedupKey", "Dedup key", f.dedupKey()))
                .append(input("error", "Error contains", f.error()))
                .append(input("since", "Changed since", f.since()))
                .append("<button>Show</button></form>");
        if (page.note() != null) {
            b.append("<p class=\"note\">").append(esc(page.note())).append("</p>");
        }
        Instant now = Instant.now();
        b.append("<table id=\"tasks\"><thead><tr><th>id</th><th>type</th><th>state</th><th>attempts</th>")
                .append(
                        "<th>due / lease end</th><th>age</th><th>last error</th><th>alert reason</th></tr></thead><tbody>");
        for (TaskRow t : page.rows()) {
            b.append("<tr><td><a href=\"")
                    .append(esc(r.basePath() + "/tasks/" + t.id()))
                    .append("\">")
                    .append(t.id())
                    .append("</a></td><td>")
                    .append(esc(t.type()))
                    .append("</td><td class=\"")
                    .append(t.state())
                    .append("\">")
                    .append(t.state())
                    .append("</td><td class=\"num\">")
                    .append(t.attempts())
                    .append("</td><td>")
                    .append(Html.time(t.dueAt()))
                    .append("</td><td>")
                    .append(Html.age(t.createdAt(), now))
                    .append("</td><td>")
                    .append(esc(Html.clip(t.lastError(), 80)))
                    .append("</td><td>")
                    .append(esc(console.alertReason(t)))
                    .append("</td></tr>");
        }
        b.append("</tbody></table>");
        if (page.rows().isEmpty()) {
            b.append("<p id=\"empty\">No tasks match.</p>");
        }
        if (page.next() != null) {
            b.append("<p><a id=\"next\" href=\"")
                    .append(esc(r.basePath() + "/tasks?" + query(r, page.next())))
                    .append("\">Next page →</a></p>");
        }
        TaskState s = f.listState();
        boolean oneState = f.state() != null || !f.search();
        if (oneState && r.actor().operator() && (s == TaskState.BLOCKED || s == TaskState.PENDING)) {
            b.append(Html.form(
                    r,
                    "/tasks/bulk",
                    "bulk",
                    "<fieldset><legend>On every task of this selection (" + esc(f.describe(s))
                            + "), not only this page</legend>" + selection(f)
                            + "<select name=\"action\">" + (s == TaskState.BLOCKED ? "<option>unblock</option>" : "")
                            + (s == TaskState.PENDING ? "<option>run-now</option>" : "") + "<option>cancel</option>"
                            + "</select> <button>Count and confirm…</button></fieldset>"));
        }
        return Html.page(r, "tasks", "Retry tasks", b.toString());
    }

    private String counts(ConsoleRequest r) {
        StringBuilder b = new StringBuilder("<table id=\"counts\"><tr>");
        List<RetryTasks.Count> counts = console.counts();
        for (RetryTasks.Count c : counts) {
            if (c.type() == null) {
                b.append("<td><a href=\"")
                        .append(esc(r.basePath() + "/tasks?state=" + c.state()))
                        .append("\">")
                        .append(c.state())
                        .append("</a> <strong class=\"")
                        .append(c.state())
                        .append("\">")
                        .append(c.count())
                        .append(c.capped() ? "+" : "")
                        .append("</strong></td>");
            }
        }
        return b.append("</tr></table>").toString();
    }

    /** The selection of a bulk action as hidden fields: every field of the filter but the page's. */
    private static String selection(TaskFilter f) {
        return Html.hidden("state", f.listState().name())
                + (f.type() != null ? Html.hidden("type", f.type()) : "")
                + (f.taskKey() != null ? Html.hidden("taskKey", f.taskKey()) : "")
                + (f.dedupKey() != null ? Html.hidden("dedupKey", f.dedupKey()) : "")
                + (f.error() != null ? Html.hidden("error", f.error()) : "")
                + (f.since() != null ? Html.hidden("since", f.since()) : "");
    }

    private static String input(String name, String label, Object value) {
        return "<label>" + label + " <input type=\"text\" name=\"" + name + "\" value=\"" + esc(value) + "\"></label> ";
    }

    private static String query(ConsoleRequest r, String cursor) {
        StringBuilder q = new StringBuilder();
        for (String k : new String[] {"state", "type", "taskKey", "dedupKey", "error", "since", "limit"}) {
            if (r.param(k) != null) {
                q.append(k).append('=').append(Html.url(r.param(k))).append('&');
            }
        }
        return q.append("cursor=").append(Html.url(cursor)).toString();
    }

    String task(ConsoleRequest r, long id, Outcome outcome) {
        TaskRow t = console.task(id).orElseThrow(() -> new NotFoundException("there is no retry task " + id));
        StringBuilder b = new StringBuilder();
        if (outcome != null) {
            b.append(Html.message(outcome));
        }
        Map<String, Object> payload = Display.bytes(t.payload(), t.payloadSize());
        String text = (String) payload.get("text");
        b.append("<table id=\"task\">")
                .append(row("id", t.id()))
                .append(row("type", t.type()))
                .append("<tr><th>state</th><td id=\"state\" class=\"")
                .append(t.state())
                .append("\">")
                .append(t.state())
                .append("</td></tr>")
                .append(row("attempts", t.attempts()))
                .append(row("due / lease end", Html.time(t.dueAt())))
                .append(row("task key", t.taskKey()))
                .append(row("dedup key", t.dedupKey()))
                .append(row(
                        "created", Html.time(t.createdAt()) + " (" + Html.age(t.createdAt(), Instant.now()) + " ago)"))
                .append(row("last change", Html.time(t.updatedAt())))
                .append(row("alert reason", console.alertReason(t)))
                .append("</table><h2>Last error</h2><pre id=\"error\">")
                .append(esc(t.lastError()))
                .append("</pre>")
                .append("<h2>Payload (")
                .append(t.payloadSize())
                .append(" bytes")
                .append(t.payloadSize() > t.payload().length ? ", first " + t.payload().length + " shown" : "")
                .append(text == null ? ", hex" : "")
                .append(")</h2><pre id=\"payload\">")
                .append(esc(text != null ? text : HexFormat.of().formatHex(t.payload())))
                .append("</pre>");
        if (r.actor().operator()) {
            String version = Html.hidden("version", Params.version(t.updatedAt()));
            String base = "/tasks/" + t.id() + "/";
            if (t.state() == TaskState.BLOCKED) {
                boolean editable = text != null && t.payloadSize() == t.payload().length;
                b.append(Html.form(
                        r,
                        base + "unblock",
                        "unblock",
                        "<fieldset><legend>Unblock: due now, a fresh attempt budget"
                                + "</legend>" + version + Html.reason()
                                + (editable
                                        ? "<br><label><input type=\"checkbox\" name=\"editPayload\" value=\"1\"> replace the"
                                                + " payload with</label><br><textarea name=\"payload\" rows=\"4\">"
                                                + esc(text)
                                                + "</textarea><br>"
                                        : "")
                                + "<button>Unblock</button></fieldset>"));
            }
            if (t.state() == TaskState.PENDING) {
                b.append(Html.form(
                        r,
                        base + "run-now",
                        "run-now",
                        "<fieldset><legend>Run now</legend>" + version + Html.reason()
                                + "<button>Run now</button></fieldset>"));
            }
            if (t.state() == TaskState.PENDING || t.state() == TaskState.BLOCKED) {
                b.append(Html.form(
                        r,
                        base + "cancel",
                        "cancel",
                        "<fieldset><legend>Cancel: the task never runs" + "</legend>" + version + Html.reason()
                                + "<button>Cancel task</button></fieldset>"));
            }
        }
        return Html.page(r, "tasks", "Retry task " + t.id(), b.toString());
    }

    /** Step one of a bulk action: how many tasks, and a form that applies it to exactly those. */
    String confirmBulk(ConsoleRequest r) {
        TaskFilter f = Params.bulkFilter(r);
        String action = r.param("action");
        TaskActions.Selection s = console.select(action, f);
        StringBuilder b = new StringBuilder("<p class=\"warn\" id=\"confirm-count\"><strong>")
                .append(s.count())
                .append(" task(s)</strong> ")
                .append(esc(f.describe(f.listState())))
                .append(" will be changed by <strong>")
                .append(esc(action))
                .append("</strong>.</p>");
        if (s.count() == 0) {
            return Html.page(
                    r,
                    "tasks",
                    "Nothing to do",
                    b.append("<p>No task matches.</p>").toString());
        }
        b.append(Html.form(
                r,
                "/tasks/bulk/apply",
                "bulk-apply",
                Html.hidden("action", action)
                        + selection(f) + Html.hidden("count", s.count())
                        + Html.hidden("maxId", s.maxId()) + Html.reason() + "<button>" + esc(action) + " "
                        + s.count() + " task(s)</button>"));
        return Html.page(r, "tasks", "Confirm: " + action + " " + s.count() + " task(s)", b.toString());
    }

    private static String row(String name, Object value) {
        return "<tr><th>" + esc(name) + "</th><td>" + esc(value) + "</td></tr>";
    }
}

package io.dupguard.console;

import static io.dupguard.console.Html.esc;

import io.dupguard.StoreUnavailableException;
import java.util.List;
import java.util.Optional;

/** The overview, idempotency key, lock and audit pages. */
final class StorePages {
    private final Console console;

    StorePages(Console console) {
        this.console = console;
    }

    String overview(ConsoleRequest r) {
        StringBuilder b =
                new StringBuilder("<h2>Retry tasks</h2><table id=\"overview-counts\"><tr><th>state</th><th>type</th>"
                        + "<th class=\"num\">tasks</th></tr>");
        for (RetryTasks.Count c : console.counts()) {
            String link = r.basePath() + "/tasks?state=" + c.state()
                    + (c.type() != null ? "&type=" + Html.url(c.type()) : "");
            b.append("<tr><td class=\"")
                    .append(c.state())
                    .append("\">")
                    .append(c.type() == null ? c.state() : "")
                    .append("</td><td>")
                    .append(c.type() == null ? "<em>all</em>" : esc(c.type()))
                    .append("</td><td class=\"num\"><a href=\"")
                    .append(esc(link))
                    .append("\">")
                    .append(c.count())
                    .append(c.capped() ? "+" : "")
                    .append("</a></td></tr>");
        }
        b.append("</table><h2>Meters of this instance</h2>");
        List<MeterRates.Rate> meters = console.meters();
        if (meters.isEmpty()) {
            b.append("<p class=\"note\">No meters (no Micrometer registry in this process).</p>");
        } else {
            b.append("<table id=\"meters\"><tr><th>meter</th><th>tags</th><th class=\"num\">value</th>"
                    + "<th class=\"num\">per minute</th></tr>");
            for (MeterRates.Rate m : meters) {
                b.append("<tr><td>")
                        .append(esc(m.name()))
                        .append("</td><td>")
                        .append(esc(m.tags()))
                        .append("</td><td class=\"num\">")
                        .append(String.format("%.0f", m.value()))
                        .append("</td><td class=\"num\">")
                        .append(m.perMinute() == null ? "" : String.format("%.1f", m.perMinute()))
                        .append("</td></tr>");
            }
            b.append("</table><p class=\"note\">Rates compare this view with the previous one (at least 5 s"
                    + " earlier); reload to update.</p>");
        }
        b.append("<h2>Idempotency scopes</h2><ul id=\"scopes\">");
        // Each store's section on its own: a table a store creates at its first use may not exist yet.
        try {
            for (String s : console.scopes()) {
                b.append("<li>")
                        .append(esc(s))
                        .append(" — <a href=\"")
                        .append(esc(r.basePath() + "/keys/stuck?scope=" + Html.url(s)))
                        .append("\">stuck claims</a></li>");
            }
        } catch (StoreUnavailableException e) {
            b.append("<li class=\"note\">not available: ")
                    .append(esc(e.getMessage()))
                    .append("</li>");
        }
        b.append("</ul><h2>Locks</h2><p>");
        try {
            b.append("<a href=\"")
                    .append(esc(r.basePath() + "/locks"))
                    .append("\">")
                    .append(console.locks(200).size())
                    .append(" held</a>");
        } catch (StoreUnavailableException e) {
            b.append("<span class=\"note\">not available: ")
                    .append(esc(e.getMessage()))
                    .append("</span>");
        }
        b.append("</p>");
        return Html.page(r, "overview", "Overview", b.toString());
    }

    String keys(ConsoleRequest r, Outcome outcome) {
        StringBuilder b = new StringBuilder();
        if (outcome != null) {
            b.append(Html.message(outcome));
        }
        String scope = r.param("scope");
        String key = r.param("key");
        b.append("<form method=\"get\" id=\"lookup\" action=\"")
                .append(esc(r.basePath() + "/keys"))
                .append("\">")
                .append("<label>Scope <input type=\"text\" name=\"scope\" value=\"")
                .append(esc(scope))
                .append("\"></label> <label>Key <input type=\"text\" name=\"key\" value=\"")
                .append(esc(key))
                .append("\"></label> <button>Look up</button></form>");
        if (scope != null && key != null) {
            Optional<KeyRow> found = console.key(scope, key);
            if (found.isEmpty()) {
                b.append("<p id=\"not-found\">No key '")
                        .append(esc(key))
                        .append("' in scope ")
                        .append(esc(scope))
                        .append(" (never used, or purged after its retention).</p>");
            } else {
                b.append(key(r, found.get()));
            }
        }
        b.append("<h2>Stuck claims</h2><ul>");
        for (String s : console.scopes()) {
            b.append("<li><a href=\"")
                    .append(esc(r.basePath() + "/keys/stuck?scope=" + Html.url(s)))
                    .append("\">")
                    .append(esc(s))
                    .append("</a></li>");
        }
        return Html.page(r, "keys", "Idempotency keys", b.append("</ul>").toString());
    }

    private String key(ConsoleRequest r, KeyRow k) {
        String decoded = Display.decoded(k.result(), k.resultSize());
        java.util.Map<String, Object> raw = Display.bytes(k.result(), k.resultSize());
        StringBuilder b = new StringBuilder("<table id=\"key\">")
                .append(row("scope", k.scope()))
                .append(row("key", k.key()))
                .append("<tr><th>status</th><td id=\"key-status\">")
                .append(k.status())
                .append(k.stuck() ? " — stuck: in flight past its lease" : "")
                .append("</td></tr>")
                .append(
                        k.processed()
                                ? row(
                                        "table",
                                        "processed messages: a listener's message, committed with its effect (no owner,"
                                                + " no result)")
                                : "")
                .append(row("owner", k.owner()))
                .append(row(
                        k.status() == io.dupguard.idempotency.RecordStatus.IN_PROGRESS ? "lease end" : "retained until",
                        Html.time(k.expiresAt()) + " (store clock now " + Html.time(k.now()) + ", "
                                + (k.live() ? "ends in " + Html.age(k.now(), k.expiresAt()) : "ended") + ")"))
                .append(row("fingerprint", k.fingerprint()));
        if (raw != null) {
            b.append(row(
                            "result",
                            decoded != null
                                    ? decoded
                                    : raw.get("text") != null ? raw.get("text") : "hex " + raw.get("hex")))
                    .append(row("result size", k.resultSize() + " bytes"));
        }
        b.append("</table>");
        if (r.actor().operator() && k.live()) {
            b.append(Html.form(
                    r,
                    "/keys/expire",
                    "expire",
                    "<fieldset><legend>Force-expire</legend><p class=\"warn\">"
                            + (k.processed()
                                    ? "Consequence: the next delivery of this message runs its handler again"
                                    : "Consequence: the next request or retry with this key runs the operation again")
                            + (k.status() == io.dupguard.idempotency.RecordStatus.IN_PROGRESS
                                    ? ", even though the current holder may still be running it"
                                    : "")
                            + ".</p>" + Html.hidden("scope", k.scope()) + Html.hidden("key", k.key())
                            + Html.hidden("version", Params.version(k.expiresAt())) + Html.reason()
                            + "<label><input type=\"checkbox\" name=\"confirm\" value=\"1\" required> I understand</label> "
                            + "<button>Force-expire</button></fieldset>"));
        }
        return b.toString();
    }

    String stuck(ConsoleRequest r) {
        String scope = r.param("scope");
        Page<KeyRow> page = console.stuck(scope, r.param("after"), 50);
        StringBuilder b = new StringBuilder();
        if (page.note() != null) {
            b.append("<p class=\"note\">").append(esc(page.note())).append("</p>");
        }
        b.append("<table id=\"stuck\"><tr><th>key</th><th>owner</th><th>lease ended</th></tr>");
        for (KeyRow k : page.rows()) {
            b.append("<tr><td><a href=\"")
                    .append(esc(r.basePath() + "/keys?scope=" + Html.url(k.scope()) + "&key=" + Html.url(k.key())))
                    .append("\">")
                    .append(esc(k.key()))
                    .append("</a></td><td>")
                    .append(esc(k.owner()))
                    .append("</td><td>")
                    .append(Html.time(k.expiresAt()))
                    .append(" (")
                    .append(Html.age(k.expiresAt(), k.now()))
                    .append(" ago)</td></tr>");
        }
        b.append("</table>");
        if (page.next() != null) {
            b.append("<p><a id=\"next\" href=\"")
                    .append(esc(
                            r.basePath() + "/keys/stuck?scope=" + Html.url(scope) + "&after=" + Html.url(page.next())))
                    .append("\">Continue →</a></p>");
        }
        return Html.page(r, "keys", "Stuck claims of " + scope, b.toString());
    }

    String locks(ConsoleRequest r, Outcome outcome) {
        StringBuilder b = new StringBuilder();
        if (outcome != null) {
            b.append(Html.message(outcome));
        }
        Page<LockRow> held = console.lockPage(200);
        if (held.note() != null) {
            b.append("<p class=\"note\">").append(esc(held.note())).append("</p>");
        }
        b.append("<table id=\"locks\"><tr><th>provider</th><th>name</th><th>owner</th><th>fencing token</th>")
                .append("<th>lease end (store clock)</th><th></th></tr>");
        for (LockRow l : console.locks(200)) {
            b.append("<tr><td>")
                    .append(l.provider())
                    .append("</td><td>")
                    .append(esc(l.name()))
                    .append("</td><td>")
                    .append(esc(l.owner()))
                    .append("</td><td class=\"num\">")
                    .append(l.fence())
                    .append("</td><td>")
                    .append(Html.time(l.leaseEnd()))
                    .append(" (in ")
                    .append(Html.age(l.now(), l.leaseEnd()))
                    .append(")</td><td>");
            if (r.actor().operator()) {
                b.append(Html.form(
                        r,
                        "/locks/release",
                        "release-" + l.provider() + "-" + l.name(),
                        Html.hidden("provider", l.provider()) + Html.hidden("name", l.name())
                                + Html.hidden("owner", l.owner()) + Html.reason()
                                + "<label><input type=\"checkbox\" name=\"confirm\" value=\"1\" required> a second holder"
                                + " may enter while the first still runs; the fence (tokens above " + l.fence()
                                + ") protects the resource</label> <button>Release</button>"));
            }
            b.append("</td></tr>");
        }
        return Html.page(r, "locks", "Held locks", b.append("</table>").toString());
    }

    String audit(ConsoleRequest r) {
        long before = r.param("before") == null ? 0 : Params.number(r.param("before"), "before");
        Page<AuditEntry> page = console.audit(before, 50);
        StringBuilder b =
                new StringBuilder("<table id=\"audit\"><tr><th>when</th><th>who</th><th>what</th><th>target</th>"
                        + "<th>reason</th><th>before</th><th>after</th></tr>");
        for (AuditEntry e : page.rows()) {
            b.append("<tr><td>")
                    .append(Html.time(e.at()))
                    .append("</td><td>")
                    .append(esc(e.actor()))
                    .append("</td><td>")
                    .append(esc(e.action()))
                    .append("</td><td>")
                    .append(esc(e.target()))
                    .append("</td><td>")
                    .append(esc(e.reason()))
                    .append("</td><td><code>")
                    .append(esc(e.before()))
                    .append("</code></td><td><code>")
                    .append(esc(e.after()))
                    .append("</code></td></tr>");
        }
        b.append("</table>");
        if (page.next() != null) {
            b.append("<p><a id=\"next\" href=\"")
                    .append(esc(r.basePath() + "/audit?before=" + page.next()))
                    .append("\">Older →</a></p>");
        }
        return Html.page(r, "audit", "Audit", b.toString());
    }

    private static String row(String name, Object value) {
        return "<tr><th>" + esc(name) + "</th><td>" + esc(value) + "</td></tr>";
    }
}

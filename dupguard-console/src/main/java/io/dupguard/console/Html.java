package io.dupguard.console;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** HTML building blocks: escaping, the page frame with its inline style, forms with the CSRF field. */
final class Html {
    private Html() {}

    private static final String STYLE =
            """
            body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
            header{background:#1d2330;color:#fff;padding:8px 16px;display:flex;gap:18px;align-items:center}
            header a{color:#cfd8ea;text-decoration:none}header a.on{color:#fff;font-weight:600}
            header .who{margin-left:auto;color:#9aa6bd}main{padding:16px}
            table{border-collapse:collapse;background:#fff;margin:8px 0}td,th{border:1px solid #dde1e8;padding:4px 8px;
            text-align:left;vertical-align:top}th{background:#eef1f5}.num{text-align:right}
            .BLOCKED{color:#b3261e;font-weight:600}.PENDING{color:#8a5a00}.SUCCEEDED{color:#1b6e2e}
            .msg{padding:8px 12px;border-radius:4px;margin:8px 0}.ok{background:#dff3e4}.no{background:#fde7e4}
            .warn{background:#fff4d6;padding:8px 12px;border-radius:4px}
            form.inline{display:inline}fieldset{border:1px solid #dde1e8;background:#fff;margin:8px 0}
            pre{background:#fff;border:1px solid #dde1e8;padding:8px;max-width:100ch;overflow:auto;white-space:pre-wrap}
            textarea{width:100%;max-width:100ch}input[type=text]{min-width:14em}.note{color:#5b6475}
            """;

    static String esc(Object o) {
        if (o == null) {
            return "";
        }
        String s = o.toString();
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    static String url(String s) {
        return java.net.URLEncoder.encode(s == null ? "" : s, java.nio.charset.StandardCharsets.UTF_8);
    }

    static String page(ConsoleRequest r, String nav, String title, String body) {
        String base = r.basePath();
        StringBuilder sb = new StringBuilder(4096);
        sb.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(esc(title))
                .append(" · dupguard</title><style>")
                .append(STYLE)
                .append("</style></head><body><header><strong>dupguard</strong>");
        String[][] links = {
            {"overview", "/", "Overview"},
            {"tasks", "/tasks", "Retry tasks"},
            {"keys", "/keys", "Idempotency keys"},
            {"locks", "/locks", "Locks"},
            {"audit", "/audit", "Audit"}
        };
        for (String[] l : links) {
            sb.append("<a id=\"nav-")
                    .append(l[0])
                    .append("\" href=\"")
                    .append(esc(base + l[1]))
                    .append('"')
                    .append(l[0].equals(nav) ? " class=\"on\"" : "")
                    .append('>')
                    .append(l[2])
                    .append("</a>");
        }
        sb.append("<span class=\"who\">")
                .append(esc(r.actor().name()))
                .append(r.actor().operator() ? " · operator" : " · viewer (read-only)")
                .append("</span></header><main><h1>")
                .append(esc(title))
                .append("</h1>")
                .append(body)
                .append("</main></body></html>");
        return sb.toString();
    }

    /** A POST form to {@code action} with the CSRF field; {@code inner} holds its fields and button. */
    static String form(ConsoleRequest r, String action, String id, String inner) {
        return "<form method=\"post\" id=\"" + esc(id) + "\" action=\"" + esc(r.basePath() + action) + "\">"
                + "<input type=\"hidden\" name=\"" + esc(r.csrf().parameter()) + "\" value=\""
                + esc(r.csrf().token())
                + "\">" + inner + "</form>";
    }

    static String hidden(String name, Object value) {
        return "<input type=\"hidden\" name=\"" + esc(name) + "\" value=\"" + esc(value) + "\">";
    }

    static String reason() {
        return "<label>Reason <input type=\"text\" name=\"reason\" required maxlength=\"1000\"></label> ";
    }

    static String message(Outcome o) {
        return "<div class=\"msg " + (o.changed() ? "ok" : "no") + "\" id=\"outcome\">" + esc(o.message()) + "</div>";
    }

    static String time(Instant t) {
        return t == null ? "" : t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    static String age(Instant t, Instant now) {
        if (t == null) {
            return "";
        }
        Duration d = Duration.between(t, now);
        if (d.isNegative()) {
            return "in " + age(now, t);
        }
        long s = d.getSeconds();
        return s < 120 ? s + " s" : s < 7200 ? s / 60 + " min" : s < 172_800 ? s / 3600 + " h" : s / 86400 + " d";
    }

    static String clip(String s, int max) {
        if (s == null) {
            return "";
        }
        String one = s.replaceAll("\\s+", " ");
        return one.length() <= max ? one : one.substring(0, max - 1) + "…";
    }
}

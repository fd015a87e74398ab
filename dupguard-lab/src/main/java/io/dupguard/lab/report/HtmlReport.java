package io.dupguard.lab.report;

import io.dupguard.lab.storm.Chart;
import io.dupguard.lab.storm.StormReport;
import io.dupguard.lab.storm.StrategyResult;
import io.dupguard.lab.storm.WorkloadReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code --html FILE}: one self-contained page — inline CSS and SVG, no scripts, fonts or other
 * external resources — with each workload's table, what broke, and its charts: what its strategies
 * fail on ({@link io.dupguard.lab.storm.Workload#charts()}: duplicate effects, refusals, errors or
 * stale writes) and client-observed latency per strategy.
 */
public final class HtmlReport {
    private static final String STYLE = String.join(
            "\n",
            "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1100px;"
                    + "color:#222;padding:0 1em}",
            "h1{margin-bottom:.2em} h2{margin-top:2em;border-bottom:1px solid #ddd}",
            ".verdict{font-weight:600;padding:.6em 1em;border-radius:4px}",
            ".verdict.ok{background:#e8f5e9;color:#1b5e20} .verdict.failed{background:#fdecea;color:#b71c1c}",
            ".setup{color:#555}",
            "table{border-collapse:collapse;margin:1em 0;font-variant-numeric:tabular-nums}",
            "th,td{padding:.3em .7em;border-bottom:1px solid #eee;text-align:right}",
            "th:nth-child(-n+2),td:nth-child(-n+2){text-align:left}",
            "tr.naive td:nth-child(2){color:#c0392b} tr.dupguard td:nth-child(2){color:#2e7d32}",
            "tr.broken{background:#fdecea} td.bad{color:#c0392b;font-weight:600}",
            ".notes li{margin:.2em 0} .evidence{color:#555;font-family:monospace}",
            "figure{margin:1.5em 0} figcaption{font-weight:600;margin-bottom:.4em}",
            "svg text{font:12px system-ui,sans-serif;fill:#333}");

    private HtmlReport() {}

    public static void write(StormReport report, Path file) throws IOException {
        Files.writeString(file, render(report), StandardCharsets.UTF_8);
    }

    /** The page up to its heading {@code title}: the reports' style plus {@code style}. */
    static StringBuilder page(String title, String style) {
        return new StringBuilder()
                .append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
                .append(title)
                .append("</title>\n<style>\n")
                .append(STYLE)
                .append(style)
                .append("\n</style>\n</head>\n<body>\n<h1>")
                .append(title)
                .append("</h1>\n");
    }

    static String render(StormReport report) {
        StringBuilder html = page("dupguard storm", "");
        if (report.ok()) {
            html.append("<p class=\"verdict ok\">Every dupguard strategy: 0 duplicate effects, 0 lost requests,"
                    + " no tampered duplicate accepted, every replay equal to the first answer.</p>\n");
        } else {
            html.append("<p class=\"verdict failed\">A dupguard strategy broke an invariant: ")
                    .append(Html.escape(String.join(" | ", report.brokenDupguard())))
                    .append("</p>\n");
        }
        html.append("<p class=\"setup\">").append(Html.escape(setup(report))).append("</p>\n");
        for (WorkloadReport w : report.workloads()) {
            workload(html, w);
        }
        return html.append("</body>\n</html>\n").toString();
    }

    private static String setup(StormReport report) {
        StormReport.Setup s = report.setup();
        return String.format(
                Locale.ROOT,
                "dupguard %s · %s%s · locks: %s · %d clients · %s per strategy · seed %d · client timeout %s,"
                        + " up to %d attempts · latency %s · %.1f s in all",
                s.version(),
                s.database(),
                (s.redis().isEmpty() ? "" : " · " + s.redis())
                        + (s.redlock().isEmpty() ? "" : " · " + s.redlock())
                        + (s.zookeeper().isEmpty() ? "" : " · " + s.zookeeper()),
                s.locks(),
                s.clients(),
                Numbers.millis(s.durationMillis()),
                s.seed(),
                Numbers.millis(s.timeoutMillis()),
                s.maxAttempts(),
                s.latency(),
                report.wallSeconds());
    }

    private static void workload(StringBuilder html, WorkloadReport w) {
        html.append("<section class=\"workload\" id=\"")
                .append(Html.escape(w.name()))
                .append("\">\n<h2>")
                .append(Html.escape(w.name()))
                .append("</h2>\n<p>")
                .append(Html.escape(w.summary()))
                .append("</p>\n<table class=\"results\">\n<thead><tr>");
        for (String h : TextReport.HEADERS) {
            html.append("<th>").append(h).append("</th>");
        }
        html.append("</tr></thead>\n<tbody>\n");
        for (StrategyResult s : w.strategies()) {
            html.append("<tr class=\"")
                    .append(s.family())
                    .append(s.brokenDupguard() ? " broken" : "")
                    .append("\" title=\"")
                    .append(Html.escape(s.summary()))
                    .append("\">");
            cell(html, s.label(), false);
            cell(html, s.family(), false);
            cell(html, Numbers.count(s.requests()), false);
            cell(html, Numbers.count(s.duplicatesSent()), false);
            cell(html, Numbers.count(s.duplicatesAbsorbed()), false);
            cell(html, Numbers.count(s.duplicateEffects()), s.duplicateEffects() > 0);
            cell(html, Numbers.count(s.lost()), s.lost() > 0);
            cell(html, Numbers.count(s.refused()), false);
            cell(html, Numbers.rate(s.opsPerSec()), false);
            cell(html, Numbers.micros(s.p50Micros()), false);
            cell(html, Numbers.micros(s.p99Micros()), false);
            html.append("</tr>\n");
        }
        html.append("</tbody>\n</table>\n<ul class=\"notes\">\n");
        for (StrategyResult s : w.strategies()) {
            html.append("<li><b>")
                    .append(Html.escape(s.label()))
                    .append("</b>: ")
                    .append(Html.escape(s.summary()))
                    .append(s.ok() ? ". Held." : ". Broke: " + Html.escape(String.join("; ", s.violations())) + ".");
            if (!s.metrics().isEmpty()) {
                html.append("<br>").append(Html.escape(Numbers.metrics(s.metrics())));
            }
            if (!s.evidence().isEmpty()) {
                html.append("<br><span class=\"evidence\">e.g. ")
                        .append(Html.escape(s.evidence()))
                        .append("</span>");
            }
            html.append("</li>\n");
        }
        html.append("</ul>\n");
        for (Chart chart : w.charts()) {
            html.append("<figure>\n<figcaption>")
                    .append(Html.escape(chart.title()))
                    .append("</figcaption>\n")
                    .append(SvgCharts.bars(chart, w.strategies()))
                    .append("\n</figure>\n");
        }
        if (w.strategies().stream().anyMatch(r -> !r.timeline().isEmpty())) {
            html.append("<figure>\n<figcaption>Under faults: answers per 100 ms (bars), errors (dark ticks),")
                    .append(" fault active (shaded)</figcaption>\n")
                    .append(SvgCharts.timeline(w.strategies()))
                    .append("\n</figure>\n");
        }
        html.append("<figure>\n<figcaption>Client-observed latency per strategy, retries included")
                .append("</figcaption>\n")
                .append(SvgCharts.latency(w.strategies()))
                .append("\n</figure>\n</section>\n");
    }

    private static void cell(StringBuilder html, String text, boolean bad) {
        html.append(bad ? "<td class=\"bad\">" : "<td>")
                .append(Html.escape(text))
                .append("</td>");
    }
}

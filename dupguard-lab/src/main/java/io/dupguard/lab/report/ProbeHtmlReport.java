package io.dupguard.lab.report;

import io.dupguard.lab.probe.KeyResult;
import io.dupguard.lab.probe.ProbeReport;
import io.dupguard.lab.probe.ScenarioVerdict;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code dupguard probe --html FILE}: one self-contained page in the storm report's style — the
 * verdict, the scenario table, per scenario its keys (answers and effects) and findings, and the
 * latency of every scenario's attempts.
 */
public final class ProbeHtmlReport {
    private ProbeHtmlReport() {}

    public static void write(ProbeReport report, Path file) throws IOException {
        Files.writeString(file, render(report), StandardCharsets.UTF_8);
    }

    static String render(ProbeReport report) {
        StringBuilder html =
                HtmlReport.page("dupguard probe", "\ntr.FAIL{background:#fdecea} tr.WARN{background:#fff8e1}");
        if (report.ok()) {
            html.append("<p class=\"verdict ok\">Every key took effect exactly once.</p>\n");
        } else {
            html.append("<p class=\"verdict failed\">Keys with duplicate or lost effects: ")
                    .append(Html.escape(String.join(" | ", report.brokenKeys())))
                    .append("</p>\n");
        }
        html.append("<p class=\"setup\">")
                .append(Html.escape(String.format(
                        Locale.ROOT,
                        "%s · effects counted by %s · %.1f s in all",
                        report.target(),
                        String.join(" and ", report.effectsQueries()),
                        report.wallSeconds())))
                .append("</p>\n<table class=\"results\">\n<thead><tr>");
        for (String h : ProbeTextReport.HEADERS) {
            html.append("<th>").append(h).append("</th>");
        }
        html.append("</tr></thead>\n<tbody>\n");
        for (ScenarioVerdict s : report.scenarios()) {
            html.append("<tr class=\"").append(s.verdict()).append("\">");
            String[] row = ProbeTextReport.row(s);
            for (int i = 0; i < row.length; i++) {
                boolean bad = (i == 1 && ScenarioVerdict.FAIL.equals(s.verdict()))
                        || (i == 5 || i == 6) && !"0".equals(row[i]);
                html.append(bad ? "<td class=\"bad\">" : "<td>")
                        .append(Html.escape(row[i]))
                        .append("</td>");
            }
            html.append("</tr>\n");
        }
        html.append("</tbody>\n</table>\n");
        for (ScenarioVerdict s : report.scenarios()) {
            html.append("<section class=\"scenario\" id=\"")
                    .append(Html.escape(s.name()))
                    .append("\">\n<h2>")
                    .append(Html.escape(s.name()))
                    .append(" — ")
                    .append(s.verdict())
                    .append("</h2>\n<p>")
                    .append(Html.escape(s.description()))
                    .append("</p>\n<ul class=\"notes\">\n");
            for (String f : s.findings()) {
                html.append("<li><b>").append(Html.escape(f)).append("</b></li>\n");
            }
            for (String n : s.notes()) {
                html.append("<li>").append(Html.escape(n)).append("</li>\n");
            }
            html.append("</ul>\n<table class=\"keys\">\n<thead><tr><th>key</th><th>verdict</th><th>effects</th>")
                    .append("<th>answers</th></tr></thead>\n<tbody>\n");
            for (KeyResult k : s.keys()) {
                html.append("<tr><td>")
                        .append(Html.escape(k.key()))
                        .append(k.broken() ? "</td><td class=\"bad\">" : "</td><td>")
                        .append(Html.escape(k.verdict()))
                        .append("</td><td>")
                        .append(Html.escape(k.effectsText()))
                        .append("</td><td>")
                        .append(Html.escape(String.join(", ", k.answers())))
                        .append("</td></tr>\n");
            }
            html.append("</tbody>\n</table>\n</section>\n");
        }
        html.append("<figure>\n<figcaption>Latency of every attempt per scenario</figcaption>\n")
                .append(SvgCharts.latency(
                        report.scenarios().stream()
                                .map(s -> new SvgCharts.LatencyRow(
                                        s.name(),
                                        SvgCharts.colour(s.ok()),
                                        s.latencyHistogram(),
                                        s.p50Micros(),
                                        s.p99Micros()))
                                .toList(),
                        "Latency of every attempt per scenario",
                        "failed",
                        "held"))
                .append("\n</figure>\n");
        return html.append("</body>\n</html>\n").toString();
    }
}

package io.dupguard.lab.report;

import io.dupguard.lab.storm.Chart;
import io.dupguard.lab.storm.Family;
import io.dupguard.lab.storm.LatencyBucket;
import io.dupguard.lab.storm.StrategyResult;
import io.dupguard.lab.storm.Timeline;
import java.util.List;
import java.util.Locale;

/** Inline SVG charts of one workload's results; no scripts, no external resources. */
final class SvgCharts {
    private static final int LABEL = 170;
    private static final int PLOT = 420;
    private static final int RIGHT = 200;
    private static final int ROW = 30;
    // 21 fixed buckets up to 10 s, plus one for anything slower.
    private static final int LATENCY_SLOTS = 22;
    private static final String NAIVE_COLOUR = "#c0392b";
    private static final String DUPGUARD_COLOUR = "#2e7d32";
    // Charts of several series: thinner bars, each further series fainter, a legend line per series.
    private static final int SERIES_BAR = 12;
    private static final int LEGEND_LINE = 16;
    private static final String[] OPACITY = {"1", "0.55", "0.3"};

    private SvgCharts() {}

    /**
     * Horizontal bars: per strategy, one bar for each series of {@code chart}, all on one scale, in
     * the strategy's family colour — fainter for each further series — each labelled with its count.
     * A chart of one series labels the count with its share of the strategy's requests.
     */
    static String bars(Chart chart, List<StrategyResult> results) {
        List<Chart.Series> series = chart.series();
        long max = Math.max(
                1,
                results.stream()
                        .flatMapToLong(r -> series.stream().mapToLong(s -> r.count(s.measure())))
                        .max()
                        .orElse(1));
        int bar = series.size() == 1 ? ROW - 10 : SERIES_BAR;
        int row = Math.max(ROW, series.size() * (bar + 2) + 10);
        int plotted = row * results.size();
        int legendLines = series.size() == 1 ? 0 : series.size();
        StringBuilder svg = open(chart.id(), plotted + 30 + legendLines * LEGEND_LINE, Html.escape(chart.title()));
        for (int i = 0; i < results.size(); i++) {
            StrategyResult r = results.get(i);
            int y = 10 + i * row;
            svg.append(text(LABEL - 8, y + row / 2 + 4, "end", r.label()));
            for (int k = 0; k < series.size(); k++) {
                Chart.Series s = series.get(k);
                long n = r.count(s.measure());
                int top = y + (row - series.size() * (bar + 2)) / 2 + k * (bar + 2);
                double width = Math.max(3, PLOT * (double) n / max);
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\""
                                + " fill-opacity=\"%s\"><title>%s: %s %s</title></rect>",
                        LABEL,
                        top,
                        width,
                        bar,
                        colour(r),
                        OPACITY[k % OPACITY.length],
                        Html.escape(r.label()),
                        Numbers.count(n),
                        Html.escape(s.label())));
                // Several series: the count alone (a label would not fit), the legend says which bar is which.
                String label = series.size() == 1
                        ? Numbers.count(n) + " (" + Numbers.percent(n, r.requests()) + ")"
                        : Numbers.count(n);
                svg.append(text(LABEL + width + 6, top + bar / 2.0 + 4, "start", label));
            }
        }
        int axisY = 10 + plotted + 14;
        axis(
                svg,
                axisY,
                "0",
                Numbers.count(max) + (series.size() == 1 ? " " + series.get(0).label() : ""));
        legend(svg, axisY);
        for (int k = 0; k < legendLines; k++) {
            int y = axisY + (k + 1) * LEGEND_LINE;
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"#555\" fill-opacity=\"%s\"/>",
                    LABEL,
                    y - 9,
                    OPACITY[k % OPACITY.length]));
            svg.append(text(LABEL + 14, y, "start", series.get(k).label()));
        }
        return svg.append("</svg>").toString();
    }

    /**
     * Small multiples: per strategy, a histogram of client-observed latency over log-spaced buckets
     * (1 ms … 10 s), each strategy scaled to its own tallest bucket.
     */
    static String latency(List<StrategyResult> results) {
        return latency(
                results.stream()
                        .map(r -> new LatencyRow(
                                r.label(), colour(r), r.latencyHistogram(), r.p50Micros(), r.p99Micros()))
                        .toList(),
                "Client-observed latency distribution per strategy",
                "naive",
                "dupguard");
    }

    /** One row of a latency chart: its label, bar colour (see {@link #colour(boolean)}), buckets and percentiles. */
    record LatencyRow(String label, String colour, List<LatencyBucket> buckets, long p50Micros, long p99Micros) {}

    /** The colour of a row that broke ({@code false}) or held. */
    static String colour(boolean held) {
        return held ? DUPGUARD_COLOUR : NAIVE_COLOUR;
    }

    /**
     * {@link #latency(List)} for any rows, with the legend's words for the red and the green
     * colour.
     */
    static String latency(List<LatencyRow> results, String title, String redLegend, String greenLegend) {
        int height = ROW * results.size() + 30;
        StringBuilder svg = open("latency", height, title);
        for (int i = 0; i < results.size(); i++) {
            LatencyRow r = results.get(i);
            int y = 10 + i * ROW;
            svg.append(text(LABEL - 8, y + ROW / 2 + 4, "end", r.label()));
            List<LatencyBucket> buckets = r.buckets();
            long tallest = Math.max(
                    1, buckets.stream().mapToLong(LatencyBucket::count).max().orElse(1));
            double slot = (double) PLOT / LATENCY_SLOTS;
            long lower = 0;
            for (int b = 0; b < buckets.size(); b++) {
                LatencyBucket bucket = buckets.get(b);
                if (bucket.count() > 0) {
                    double h = Math.max(1.5, (ROW - 8) * (double) bucket.count() / tallest);
                    svg.append(String.format(
                            Locale.ROOT,
                            "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                                    + "<title>%s: %s requests in %s – %s</title></rect>",
                            LABEL + b * slot + 1,
                            y + ROW - 4 - h,
                            slot - 2,
                            h,
                            r.colour(),
                            Html.escape(r.label()),
                            Numbers.count(bucket.count()),
                            Numbers.micros(lower),
                            Numbers.micros(bucket.upToMicros())));
                }
                lower = bucket.upToMicros();
            }
            svg.append(text(
                    LABEL + PLOT + 8,
                    y + ROW / 2 + 4,
                    "start",
                    "p50 " + Numbers.micros(r.p50Micros()) + ", p99 " + Numbers.micros(r.p99Micros())));
        }
        int axisY = 10 + results.size() * ROW + 14;
        axis(svg, axisY, "", "");
        legend(svg, axisY, redLegend, greenLegend);
        if (!results.isEmpty()) {
            List<LatencyBucket> buckets = results.get(0).buckets();
            for (int b = 0; b < Math.min(buckets.size(), LATENCY_SLOTS - 1); b++) {
                long upTo = buckets.get(b).upToMicros();
                if (upTo == 1_000 || upTo == 10_000 || upTo == 100_000 || upTo == 1_000_000 || upTo == 10_000_000) {
                    svg.append(text(
                            LABEL + (b + 1) * (double) PLOT / LATENCY_SLOTS,
                            axisY,
                            "middle",
                            upTo < 1_000_000 ? upTo / 1000 + " ms" : upTo / 1_000_000 + " s"));
                }
            }
        }
        return svg.append("</svg>").toString();
    }

    /**
     * Small multiples for a faulted run: per strategy row, answers per 100 ms (bars in the family's
     * colour, scaled to the row's busiest slot), attempts that failed with an error (dark ticks
     * above), and the fault's active windows shaded (a thin line for an instant, such as one
     * killed connection), so a reader sees the stall and the recovery.
     */
    static String timeline(List<StrategyResult> results) {
        List<StrategyResult> rows =
                results.stream().filter(r -> !r.timeline().isEmpty()).toList();
        int tall = ROW + 10;
        int height = tall * rows.size() + 30;
        StringBuilder svg = open("timeline", height, "Answers and errors per 100 ms, fault windows shaded");
        long slots = rows.stream().mapToLong(r -> r.timeline().size()).max().orElse(1);
        double w = (double) PLOT / Math.max(1, slots);
        for (int i = 0; i < rows.size(); i++) {
            StrategyResult r = rows.get(i);
            int y = 10 + i * tall;
            svg.append(text(LABEL - 8, y + tall / 2 + 4, "end", r.name()));
            svg.append(text(LABEL + PLOT + 8, y + tall / 2 + 4, "start", r.fault()));
            for (Timeline.Window win : r.faultWindows()) {
                double x0 = LABEL + win.fromMillis() / (double) Timeline.SLOT_MILLIS * w;
                double width = Math.max(1, (win.toMillis() - win.fromMillis()) / (double) Timeline.SLOT_MILLIS * w);
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect class=\"fault\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#9e9e9e\""
                                + " fill-opacity=\"%s\"><title>%s %d–%d ms</title></rect>",
                        x0,
                        y,
                        width,
                        tall - 6,
                        win.toMillis() > win.fromMillis() ? "0.35" : "0.7",
                        Html.escape(r.fault()),
                        win.fromMillis(),
                        win.toMillis()));
            }
            long busiest = Math.max(
                    1,
                    r.timeline().stream()
                            .mapToLong(Timeline.Point::completed)
                            .max()
                            .orElse(1));
            for (int k = 0; k < r.timeline().size(); k++) {
                Timeline.Point p = r.timeline().get(k);
                double x = LABEL + k * w;
                if (p.completed() > 0) {
                    double h = Math.max(1, (tall - 14) * (double) p.completed() / busiest);
                    svg.append(String.format(
                            Locale.ROOT,
                            "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                                    + "<title>%d–%d ms: %s answered, %s errors</title></rect>",
                            x,
                            y + tall - 6 - h,
                            Math.max(0.5, w - 0.5),
                            h,
                            colour(r),
                            p.atMillis(),
                            p.atMillis() + Timeline.SLOT_MILLIS,
                            Numbers.count(p.completed()),
                            Numbers.count(p.errors())));
                }
                if (p.errors() > 0) {
                    svg.append(String.format(
                            Locale.ROOT,
                            "<rect class=\"error\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"5\" fill=\"#212121\">"
                                    + "<title>%d–%d ms: %s errors</title></rect>",
                            x,
                            y,
                            Math.max(0.5, w - 0.5),
                            p.atMillis(),
                            p.atMillis() + Timeline.SLOT_MILLIS,
                            Numbers.count(p.errors())));
                }
            }
        }
        int axisY = 10 + rows.size() * tall + 14;
        axis(svg, axisY, "0 s", String.format(Locale.ROOT, "%.1f s", slots * Timeline.SLOT_MILLIS / 1000.0));
        legend(svg, axisY);
        return svg.append("</svg>").toString();
    }

    private static StringBuilder open(String kind, int height, String title) {
        int width = LABEL + PLOT + RIGHT;
        return new StringBuilder(String.format(
                Locale.ROOT,
                "<svg class=\"chart %s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                        + " viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">",
                kind,
                width,
                height,
                width,
                height,
                title));
    }

    /** Which colour is which family. */
    private static void legend(StringBuilder svg, int y) {
        legend(svg, y, "naive", "dupguard");
    }

    private static void legend(StringBuilder svg, int y, String red, String green) {
        int x = LABEL + PLOT + 8;
        svg.append(String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>",
                x,
                y - 9,
                NAIVE_COLOUR));
        svg.append(text(x + 14, y, "start", red));
        svg.append(String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>",
                x + 70,
                y - 9,
                DUPGUARD_COLOUR));
        svg.append(text(x + 84, y, "start", green));
    }

    private static void axis(StringBuilder svg, int y, String left, String right) {
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>",
                LABEL,
                y - 12,
                LABEL + PLOT,
                y - 12));
        svg.append(text(LABEL, y, "start", left));
        svg.append(text(LABEL + PLOT, y, "end", right));
    }

    private static String text(double x, double y, String anchor, String s) {
        return String.format(
                Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>", x, y, anchor, Html.escape(s));
    }

    private static String colour(StrategyResult r) {
        return Family.NAIVE.id().equals(r.family()) ? NAIVE_COLOUR : DUPGUARD_COLOUR;
    }
}

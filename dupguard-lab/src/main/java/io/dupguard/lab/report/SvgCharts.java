package io.dupguard.lab.report;

import io.dupguard.lab.storm.Family;
import io.dupguard.lab.storm.LatencyBucket;
import io.dupguard.lab.storm.StrategyResult;
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

    private SvgCharts() {}

    /** One horizontal bar per strategy, its length the duplicate effects found in the database. */
    static String duplicateEffects(List<StrategyResult> results) {
        long max = Math.max(
                1,
                results.stream()
                        .mapToLong(StrategyResult::duplicateEffects)
                        .max()
                        .orElse(1));
        int height = ROW * results.size() + 30;
        StringBuilder svg = open("duplicate-effects", height, "Duplicate effects per strategy");
        for (int i = 0; i < results.size(); i++) {
            StrategyResult r = results.get(i);
            int y = 10 + i * ROW;
            double width = Math.max(3, PLOT * (double) r.duplicateEffects() / max);
            label(svg, r, y);
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                            + "<title>%s: %s duplicate effects</title></rect>",
                    LABEL,
                    y + 4,
                    width,
                    ROW - 10,
                    colour(r),
                    Html.escape(r.name()),
                    Numbers.count(r.duplicateEffects())));
            svg.append(text(
                    LABEL + width + 6,
                    y + ROW / 2 + 4,
                    "start",
                    Numbers.count(r.duplicateEffects()) + " (" + Numbers.percent(r.duplicateEffects(), r.requests())
                            + ")"));
        }
        axis(svg, 10 + results.size() * ROW + 14, "0", Numbers.count(max) + " duplicate effects");
        legend(svg, 10 + results.size() * ROW + 14);
        return svg.append("</svg>").toString();
    }

    /**
     * Small multiples: per strategy, a histogram of client-observed latency over log-spaced buckets
     * (1 ms … 10 s), each strategy scaled to its own tallest bucket.
     */
    static String latency(List<StrategyResult> results) {
        int height = ROW * results.size() + 30;
        StringBuilder svg = open("latency", height, "Client-observed latency distribution per strategy");
        for (int i = 0; i < results.size(); i++) {
            StrategyResult r = results.get(i);
            int y = 10 + i * ROW;
            label(svg, r, y);
            List<LatencyBucket> buckets = r.latencyHistogram();
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
                            colour(r),
                            Html.escape(r.name()),
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
        legend(svg, axisY);
        if (!results.isEmpty()) {
            List<LatencyBucket> buckets = results.get(0).latencyHistogram();
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
        int x = LABEL + PLOT + 8;
        svg.append(String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>",
                x,
                y - 9,
                NAIVE_COLOUR));
        svg.append(text(x + 14, y, "start", "naive"));
        svg.append(String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>",
                x + 70,
                y - 9,
                DUPGUARD_COLOUR));
        svg.append(text(x + 84, y, "start", "dupguard"));
    }

    private static void label(StringBuilder svg, StrategyResult r, int y) {
        svg.append(text(LABEL - 8, y + ROW / 2 + 4, "end", r.name()));
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

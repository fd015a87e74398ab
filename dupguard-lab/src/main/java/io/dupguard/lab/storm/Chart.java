package io.dupguard.lab.storm;

import java.util.List;

/**
 * A bar chart of a workload in the {@code --html} report: per strategy, one bar for each series,
 * each bar labelled with its count. A workload charts what its strategies fail on ({@link
 * Workload#charts()}), so that a naive strategy that refuses genuine requests or fails with errors
 * does not look like a dupguard strategy's 0 on a chart of duplicate effects.
 *
 * @param id the chart's CSS class, lower-case and hyphenated ({@code duplicate-effects})
 * @param title its caption
 * @param series what the bars count, at least one; all series of a chart share one scale
 */
public record Chart(String id, String title, List<Series> series) {

    /** Duplicate effects found in the database: the chart of every duplicate-storm workload. */
    public static final Chart DUPLICATE_EFFECTS = new Chart(
            "duplicate-effects",
            "Duplicate effects per strategy (counted in the database)",
            List.of(new Series("duplicate effects", StrategyResult.DUPLICATE_EFFECTS)));

    public Chart {
        if (series.isEmpty()) {
            throw new IllegalArgumentException("chart " + id + " needs at least one series");
        }
        series = List.copyOf(series);
    }

    /**
     * One kind of bar.
     *
     * @param label what is counted, unit included ({@code genuine attempts refused}); shown in the
     *     legend and next to each bar
     * @param measure the count, as {@link StrategyResult#count(String)} reads it: a count of the
     *     result ({@code duplicateEffects}, {@code errors}, …) or the key of a workload metric
     */
    public record Series(String label, String measure) {}
}

package io.dupguard.lab.storm;

import java.util.List;

/**
 * One workload's table.
 *
 * @param name the workload
 * @param summary what it models
 * @param strategies one result per strategy run, in run order
 * @param charts what the HTML report charts for it besides latency ({@link Workload#charts()})
 */
public record WorkloadReport(String name, String summary, List<StrategyResult> strategies, List<Chart> charts) {
    public WorkloadReport {
        strategies = List.copyOf(strategies);
        charts = List.copyOf(charts);
    }

    /** A workload charted by its duplicate effects. */
    public WorkloadReport(String name, String summary, List<StrategyResult> strategies) {
        this(name, summary, strategies, List.of(Chart.DUPLICATE_EFFECTS));
    }
}

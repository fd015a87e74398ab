package io.dupguard.lab.storm;

import java.util.List;

/**
 * One workload's table.
 *
 * @param name the workload
 * @param summary what it models
 * @param strategies one result per strategy run, in run order
 */
public record WorkloadReport(String name, String summary, List<StrategyResult> strategies) {
    public WorkloadReport {
        strategies = List.copyOf(strategies);
    }
}

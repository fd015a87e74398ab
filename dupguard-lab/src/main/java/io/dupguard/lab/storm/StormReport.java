package io.dupguard.lab.storm;

import java.util.List;

/**
 * Everything a storm found; what the tables, {@code --json} and {@code --html} show.
 *
 * @param workloads one entry per workload run
 * @param setup how the storm was run
 * @param wallSeconds the whole storm, setup and checks included
 * @param ok true unless a dupguard strategy broke an invariant
 */
public record StormReport(List<WorkloadReport> workloads, Setup setup, double wallSeconds, boolean ok) {

    /** The knobs and servers of a run, recorded so a report can be reproduced. */
    public record Setup(
            String version,
            int clients,
            long durationMillis,
            long seed,
            long timeoutMillis,
            int maxAttempts,
            double doubleSendRate,
            double redeliveryRate,
            double tamperRate,
            String latency,
            String database,
            String redis,
            String redlock,
            String zookeeper,
            String locks) {}

    public StormReport {
        workloads = List.copyOf(workloads);
    }

    /** {@code workload/strategy: violations} for each dupguard strategy that broke an invariant. */
    public List<String> brokenDupguard() {
        return workloads.stream()
                .flatMap(w -> w.strategies().stream()
                        .filter(StrategyResult::brokenDupguard)
                        .map(s -> w.name() + "/" + s.name() + ": " + String.join("; ", s.violations())))
                .toList();
    }
}

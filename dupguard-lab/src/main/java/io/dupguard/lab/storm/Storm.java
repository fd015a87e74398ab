package io.dupguard.lab.storm;

import io.dupguard.lab.env.LabEnvironment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Runs each planned strategy of each workload in turn: open a fresh trial, storm it, check it. */
public final class Storm {
    private static final Duration MAX_WARM_UP = Duration.ofMillis(500);

    /** The strategies of one workload to run. */
    public record Plan(Workload workload, List<Strategy> strategies) {
        public Plan {
            strategies = List.copyOf(strategies);
        }
    }

    private Storm() {}

    /**
     * Runs every planned strategy briefly and throws the results away, so that class loading, JIT
     * compilation and the filling of the connection pool do not count against whichever strategy
     * happens to run first. Measured runs start again from fresh tables and stores.
     */
    private static void warmUp(
            List<Plan> plans, LabEnvironment env, StormSettings settings, int total, Progress progress)
            throws Exception {
        Duration each = settings.duration().dividedBy(5).compareTo(MAX_WARM_UP) < 0
                ? settings.duration().dividedBy(5)
                : MAX_WARM_UP;
        progress.warmingUp(total, each);
        StormSettings warm = settings.withDuration(each).withSeed(~settings.seed());
        for (Plan plan : plans) {
            for (Strategy strategy : plan.strategies()) {
                try (Trial trial = plan.workload().open(strategy, env)) {
                    new StormDriver(trial, warm).run();
                }
            }
        }
    }

    public static StormReport run(
            List<Plan> plans, LabEnvironment env, StormSettings settings, StormReport.Setup setup, Progress progress)
            throws Exception {
        long start = System.nanoTime();
        int total = plans.stream().mapToInt(p -> p.strategies().size()).sum();
        warmUp(plans, env, settings, total, progress);
        int index = 0;
        List<WorkloadReport> reports = new ArrayList<>();
        for (Plan plan : plans) {
            List<StrategyResult> results = new ArrayList<>();
            for (Strategy strategy : plan.strategies()) {
                index++;
                StrategyResult result;
                try (Trial trial = plan.workload().open(strategy, env)) {
                    StormDriver driver = new StormDriver(trial, settings);
                    progress.started(
                            plan.workload().name(), strategy, index, total, settings.duration(), driver::requestsSoFar);
                    Observed seen = driver.run();
                    trial.settle();
                    result = StrategyResult.of(strategy, seen, trial.check(seen.ledger()));
                }
                progress.finished(plan.workload().name(), result);
                results.add(result);
            }
            reports.add(new WorkloadReport(
                    plan.workload().name(),
                    plan.workload().summary(),
                    results,
                    plan.workload().charts()));
        }
        double wall = (System.nanoTime() - start) / 1e9;
        boolean ok = reports.stream().flatMap(w -> w.strategies().stream()).noneMatch(StrategyResult::brokenDupguard);
        return new StormReport(reports, setup, wall, ok);
    }
}

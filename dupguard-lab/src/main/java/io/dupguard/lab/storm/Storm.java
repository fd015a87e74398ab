package io.dupguard.lab.storm;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.fault.Fault;
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

    /**
     * One measured run of {@code strategy} under {@code fault} (null: none): fresh tables and
     * stores, the storm with the fault beside it, the service's background work, the check.
     *
     * @param index 1-based position among {@code total} runs, for {@code progress}
     */
    public static StrategyResult runOne(
            Workload workload,
            Strategy strategy,
            Fault fault,
            LabEnvironment env,
            StormSettings settings,
            Progress progress,
            int index,
            int total)
            throws Exception {
        AutoCloseable prepared = fault == null ? () -> {} : fault.prepare(env);
        // opened before the trial here: opening it here recreates the same tables
        SecondInstance second =
                fault != null && fault.needsSecondInstance() ? SecondInstance.open(workload, strategy, env) : null;
        try (prepared;
                second;
                Trial trial = workload.open(strategy, env)) {
            StormDriver driver = new StormDriver(trial, settings, second);
            progress.started(workload.name(), strategy, index, total, settings.duration(), driver::requestsSoFar);
            FaultThread injecting = FaultThread.start(fault, env, settings, strategy);
            Observed seen;
            try {
                seen = driver.run();
            } finally {
                injecting.close(); // the fault ends with the storm's duration
            }
            trial.settle();
            Effects found = trial.check(seen.ledger());
            if (second != null) {
                found = found.withMetrics(second.metrics());
            }
            return fault == null
                    ? StrategyResult.of(strategy, seen, found)
                    : StrategyResult.of(strategy, seen, found, fault.name(), fault.durable(env, workload, strategy))
                            .withTimeline(seen.timeline(), injecting.windows());
        }
    }

    public static StormReport run(
            List<Plan> plans, LabEnvironment env, StormSettings settings, StormReport.Setup setup, Progress progress)
            throws Exception {
        return run(plans, env, settings, setup, progress, List.of());
    }

    /**
     * Runs every planned strategy once per fault in {@code faults} (once without faults if it is
     * empty). A fault runs on its own thread beside the storm, at moments drawn from the seed.
     */
    public static StormReport run(
            List<Plan> plans,
            LabEnvironment env,
            StormSettings settings,
            StormReport.Setup setup,
            Progress progress,
            List<Fault> faults)
            throws Exception {
        long start = System.nanoTime();
        List<Fault> rounds = faults.isEmpty() ? java.util.Collections.singletonList(null) : faults;
        int total = 0;
        for (Plan plan : plans) {
            for (Fault fault : rounds) {
                for (Strategy strategy : plan.strategies()) {
                    total += fault == null || fault.appliesTo(plan.workload(), strategy) ? 1 : 0;
                }
            }
        }
        warmUp(
                plans,
                env,
                settings,
                plans.stream().mapToInt(p -> p.strategies().size()).sum(),
                progress);
        int index = 0;
        List<WorkloadReport> reports = new ArrayList<>();
        for (Plan plan : plans) {
            List<StrategyResult> results = new ArrayList<>();
            for (Fault fault : rounds) {
                for (Strategy strategy : plan.strategies()) {
                    if (fault != null && !fault.appliesTo(plan.workload(), strategy)) {
                        String name = fault.name();
                        fault.skipReason(plan.workload(), strategy)
                                .ifPresent(
                                        why -> progress.skipped(plan.workload().name(), strategy, name, why));
                        continue;
                    }
                    index++;
                    StrategyResult result =
                            runOne(plan.workload(), strategy, fault, env, settings, progress, index, total);
                    progress.finished(plan.workload().name(), result);
                    results.add(result);
                }
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

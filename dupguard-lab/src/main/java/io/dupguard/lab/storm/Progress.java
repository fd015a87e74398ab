package io.dupguard.lab.storm;

import java.time.Duration;
import java.util.function.LongSupplier;

/** Where the storm reports what it is doing while it runs. Called from one thread. */
public interface Progress {

    /**
     * A strategy run starts.
     *
     * @param index 1-based position among all runs
     * @param requests live count of logical requests started so far
     */
    void started(String workload, Strategy strategy, int index, int total, Duration duration, LongSupplier requests);

    /** The run just started has been checked. */
    void finished(String workload, StrategyResult result);

    /** {@code strategy} of {@code workload} is not run under {@code fault}, because {@code why}. */
    default void skipped(String workload, Strategy strategy, String fault, String why) {}

    /** The JVM and the database are warmed up with {@code runs} short unmeasured runs first. */
    default void warmingUp(int runs, Duration each) {}

    /** Reports nothing. */
    Progress NONE = new Progress() {
        @Override
        public void started(
                String workload, Strategy strategy, int index, int total, Duration duration, LongSupplier requests) {}

        @Override
        public void finished(String workload, StrategyResult result) {}
    };
}

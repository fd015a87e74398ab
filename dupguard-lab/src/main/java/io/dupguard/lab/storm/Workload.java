package io.dupguard.lab.storm;

import io.dupguard.lab.env.LabEnvironment;
import java.util.List;

/**
 * A scenario from the seeds that the storm runs with each of its strategies. To add one, implement
 * this (usually with a {@link StrategyCatalog}) and list it in {@link Workloads}.
 */
public interface Workload {

    /** Lower-case, hyphenated name used by {@code --workload}. */
    String name();

    /** One line: what is modelled and which requirement / seed failure it reproduces. */
    String summary();

    /**
     * Whether a run without {@code --workload} includes this workload; the others run with {@code
     * --workload all} or by name.
     */
    default boolean inDefaultRun() {
        return true;
    }

    /**
     * What the HTML report charts per strategy besides latency: what this workload's strategies fail
     * on. By default their duplicate effects; a workload whose naive strategies fail otherwise
     * (refusals, errors, stale writes) charts that too, or instead.
     */
    default List<Chart> charts() {
        return List.of(Chart.DUPLICATE_EFFECTS);
    }

    /**
     * Whether two application instances can serve one run of {@code strategy} (the {@code
     * instance-crash} fault): everything it keeps lives in the servers, and {@link #open} twice with
     * the same trial numbering names the same tables and keys. False by default; false for a store
     * in one JVM's memory.
     */
    default boolean sharedByInstances(Strategy strategy) {
        return false;
    }

    /**
     * Whether {@code strategy} can keep its promise through the crash of an instance in the middle of
     * its work. False where the effect commits apart from dupguard's record of it: a crash between
     * the two leaves a claim that is taken over after its lease, and the work runs again.
     */
    default boolean survivesInstanceCrash(Strategy strategy) {
        return true;
    }

    /** Every strategy, naive ones first. */
    List<Strategy> strategies();

    /**
     * Prepares a fresh run of {@code strategy}: drops and creates its tables, builds its stores.
     *
     * @throws IllegalArgumentException for a strategy that is not one of {@link #strategies()}
     */
    Trial open(Strategy strategy, LabEnvironment env) throws Exception;
}

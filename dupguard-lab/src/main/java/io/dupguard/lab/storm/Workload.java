package io.dupguard.lab.storm;

import io.dupguard.lab.env.LabEnvironment;
import java.util.List;

/**
 * A scenario that the storm runs with each of its strategies. To add one, implement
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
     * Why two instances cannot serve {@code strategy} honestly, for a strategy that {@link
     * #sharedByInstances} refuses: {@code instance-crash} skips it and says so.
     */
    default String notSharedBecause(Strategy strategy) {
        return "not wired for a second application instance";
    }

    /**
     * Whether {@code strategy}'s effect commits together with what guards it against a second run
     * (dupguard's record, a unique key, a lock the survivor waits out), so that an attempt cut off
     * between its effect and its record — its instance crashed, its connection killed — is never
     * run again. False where the effect commits apart from dupguard's record: the record stays in
     * progress, is taken over after its lease, and the work runs again ({@code instance-crash}
     * reports such rows as a limit, {@code durable: false}).
     */
    default boolean effectCommitsWithRecord(Strategy strategy) {
        return true;
    }

    /**
     * Whether {@code strategy} keeps its promise while every write stalls for longer than the lab's
     * leases — a Galera cluster waiting out a node that died ({@code galera-node-kill}): a holder
     * still at work then loses its claim or lock to the next caller, and both write. True only where
     * no lease guards the effect: it commits in one transaction with dupguard's record, or against
     * a unique key. False by default.
     */
    default boolean survivesStallsPastLeases(Strategy strategy) {
        return false;
    }

    /**
     * Whether {@code strategy} keeps its promise when its connections are killed mid-statement
     * ({@code connection-kill}). By default that of {@link #effectCommitsWithRecord}; a strategy
     * whose only write after the effect is dupguard's completion holds anyway, because
     * {@code Idempotency} retries a completion that meets a killed connection while its lease holds.
     */
    default boolean survivesKilledConnections(Strategy strategy) {
        return effectCommitsWithRecord(strategy);
    }

    /**
     * Whether {@code strategy} is decided by a database row that commits with its effect, whatever
     * a store in front (Redis) forgets: the front only rejects and replays fast, so a Redis restart
     * or failover that loses a claim or a result costs a round trip, never a second effect. Such rows
     * are {@code durable: true} under every Redis fault. False by default.
     */
    default boolean decidedByDatabaseBehindRedis(Strategy strategy) {
        return false;
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

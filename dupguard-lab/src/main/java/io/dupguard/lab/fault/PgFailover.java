package io.dupguard.lab.fault;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabPostgresPair;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Workload;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;

/**
 * {@code pg-failover} / {@code pg-failover-sync}: every table and JDBC store of the run lives on a
 * PostgreSQL primary + streaming standby the lab starts itself ({@link LabPostgresPair}), reached
 * through a multi-host URL with {@code targetServerType=primary}. At a seeded moment in the first
 * half of the run the primary stops sending WAL for 300 ms (its WAL sender is stopped, as a slow
 * network holds WAL back), then the primary stops as a crash and the standby is promoted; the pool's connections
 * to the old primary fail, new ones find the new primary.
 *
 * <ul>
 *   <li>{@code pg-failover}: asynchronous replication. Commits the standby had not received when the
 *       primary died are gone after the promotion although they were acknowledged: claims, records
 *       and effects alike, so duplicate effects and lost requests are the honest result ({@code
 *       durable: false}).
 *   <li>{@code pg-failover-sync}: {@code synchronous_commit = on} with {@code
 *       synchronous_standby_names = '*'}: a commit is acknowledged only once the standby has flushed
 *       it, so the new primary has every acknowledged claim, record and effect. Durable where the
 *       effect commits with dupguard's record; where they commit apart, a commit whose answer the
 *       failover cut off is the instance crash's limit (the work may run again after the lease).
 * </ul>
 */
final class PgFailover implements Fault {
    /** How long the primary stops sending WAL before the crash: a network hop that holds WAL back. */
    static final Duration REPLICATION_LAG = Duration.ofMillis(300);

    private final boolean synchronous;
    private LabPostgresPair pair;

    PgFailover(boolean synchronous) {
        this.synchronous = synchronous;
    }

    @Override
    public String name() {
        return synchronous ? "pg-failover-sync" : "pg-failover";
    }

    @Override
    public Optional<String> unsupported(LabEnvironment env) {
        return withoutBinaries();
    }

    /** Why a failover of a {@link LabPostgresPair} cannot run here, or empty. */
    static Optional<String> withoutBinaries() {
        return LabPostgresPair.available()
                ? Optional.empty()
                : Optional.of("needs the PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup, pg_rewind)"
                        + " to start a primary and standby of its own");
    }

    @Override
    public boolean durable(LabEnvironment env) {
        return synchronous;
    }

    @Override
    public boolean durable(LabEnvironment env, Workload workload, Strategy strategy) {
        return synchronous && workload.effectCommitsWithRecord(strategy);
    }

    @Override
    public boolean inAll() {
        return false;
    }

    @Override
    public AutoCloseable prepare(LabEnvironment env) throws Exception {
        return Faults.using(new LabPostgresPair(synchronous), p -> env.useDatabase(p.url()), p -> pair = p);
    }

    @Override
    public void run(LabEnvironment env, long startNanos, long endNanos, SplittableRandom random, Active active)
            throws Exception {
        OptionalLong from = failOver(pair, env, startNanos, endNanos, random);
        if (from.isPresent()) {
            active.between(from.getAsLong(), System.nanoTime());
        }
    }

    /**
     * At the seeded moment, fails {@code pair} over ({@link #REPLICATION_LAG}) and renews the pool's
     * connections; when it began ({@link System#nanoTime()}), or empty if interrupted first.
     */
    static OptionalLong failOver(
            LabPostgresPair pair, LabEnvironment env, long startNanos, long endNanos, SplittableRandom random)
            throws Exception {
        if (!Faults.waitForSeededMoment(startNanos, endNanos, random)) {
            return OptionalLong.empty();
        }
        long from = System.nanoTime();
        pair.failover(REPLICATION_LAG);
        env.renewConnections(); // idle connections to the old primary go now, busy ones when returned
        return OptionalLong.of(from);
    }
}

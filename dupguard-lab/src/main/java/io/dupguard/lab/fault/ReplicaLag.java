package io.dupguard.lab.fault;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.ReplicaTarget;
import io.dupguard.lab.storm.Need;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Workload;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * {@code replica-lag}: the standby of {@code --jdbc-replica-url} stops applying WAL for the whole
 * run ({@code pg_wal_replay_pause()}; {@code pg_wal_replay_resume()} when the run ends, in a {@code
 * finally}). It keeps receiving WAL and answering reads — from a snapshot that grows older every
 * millisecond, as a standby behind a slow disk or a long replay conflict does. A duplicate check
 * answered there says "not processed" for everything done since (guarantee K7).
 *
 * <p>Runs every strategy of the workloads that have a strategy reading the standby, so the naive
 * row stands next to the dupguard rows, which read and write the primary only and must hold.
 */
final class ReplicaLag implements Fault {
    @Override
    public String name() {
        return "replica-lag";
    }

    @Override
    public Optional<String> unsupported(LabEnvironment env) {
        return env.replica().isPresent()
                ? Optional.empty()
                : Optional.of("give --jdbc-replica-url (a PostgreSQL streaming standby of --jdbc-url)");
    }

    @Override
    public boolean durable(LabEnvironment env) {
        return true;
    }

    @Override
    public boolean appliesTo(Workload workload, Strategy strategy) {
        return workload.strategies().stream().anyMatch(s -> s.needs().contains(Need.REPLICA));
    }

    @Override
    public void run(LabEnvironment env, long startNanos, long endNanos, SplittableRandom random, Active active)
            throws Exception {
        ReplicaTarget standby = env.replica().orElseThrow();
        long from = System.nanoTime();
        standby.pauseReplay();
        try {
            Faults.waitUntil(endNanos);
        } finally {
            standby.resumeReplay();
            active.between(from, System.nanoTime());
        }
    }
}

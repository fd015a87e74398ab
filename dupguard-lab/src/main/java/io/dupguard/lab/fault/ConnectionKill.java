package io.dupguard.lab.fault;

import io.dupguard.jdbc.SqlDialect;
import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.TrackedConnections;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Workload;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * {@code connection-kill}: every {@link #EVERY}, one of the lab's own database connections is
 * terminated on the server mid-statement ({@code pg_terminate_backend}, MariaDB {@code KILL}),
 * and the lab's Redis connections are killed ({@code CLIENT KILL ID} of the connections named
 * {@code dupguard-lab}). Only connections the lab opened are touched: the pool records each
 * connection's server-side id when it opens it. Not applicable to the embedded H2 alone.
 */
final class ConnectionKill implements Fault {
    static final Duration EVERY = Duration.ofMillis(250);

    @Override
    public String name() {
        return "connection-kill";
    }

    /**
     * The store keeps every record through a killed connection and {@code Idempotency} retries a
     * completion that meets one while its lease holds; a strategy that commits a second write of
     * its own after the guard (the token consumed, then the post) may still lose that submit.
     */
    @Override
    public boolean durable(LabEnvironment env, Workload workload, Strategy strategy) {
        return workload.survivesKilledConnections(strategy);
    }

    @Override
    public Optional<String> unsupported(LabEnvironment env) {
        if (env.trackedConnections().isEmpty() && env.redis().isEmpty()) {
            return Optional.of("the embedded H2 has no connections to kill; give --jdbc-url or --redis-url");
        }
        return Optional.empty();
    }

    @Override
    public boolean durable(LabEnvironment env) {
        return true;
    }

    @Override
    public void run(LabEnvironment env, long startNanos, long endNanos, SplittableRandom random, Active active)
            throws Exception {
        Optional<TrackedConnections> tracked = env.trackedConnections();
        try (Connection side =
                tracked.isPresent() ? DriverManager.getConnection(env.jdbcUrl().orElseThrow()) : null) {
            for (long next = startNanos + EVERY.toNanos(); next - endNanos < 0; next += EVERY.toNanos()) {
                if (!Faults.waitUntil(next)) {
                    return;
                }
                if (side != null) {
                    killOne(side, tracked.get(), random);
                }
                env.redis().ifPresent(r -> r.killLabConnections());
                long now = System.nanoTime();
                active.between(now, now);
            }
        } finally {
            // The fault ends here: a connection it killed while idle must not fail the lab's own
            // retry job, check or next setup (Redis clients reconnect by themselves).
            env.renewConnections();
        }
    }

    private static void killOne(Connection side, TrackedConnections tracked, SplittableRandom random)
            throws SQLException {
        List<Long> ids = tracked.ids();
        if (ids.isEmpty()) {
            return;
        }
        long id = ids.get(random.nextInt(ids.size()));
        String sql = tracked.dialect() == SqlDialect.POSTGRESQL
                ? "SELECT pg_terminate_backend(" + id + ")"
                : "KILL CONNECTION " + id; // a number we read from the server, not user input
        try (PreparedStatement ps = side.prepareStatement(sql)) {
            ps.execute();
        } catch (SQLException gone) {
            // MariaDB: "Unknown thread id" once the connection is gone already
        }
        tracked.forget(id);
    }
}

package io.dupguard.lab.fault;

import io.dupguard.jdbc.SqlDialect;
import io.dupguard.lab.env.LabEnvironment;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code store-stall}: once per run, at a seeded moment in its first half, every store stops
 * answering for {@link #STALL} — far longer than the clients' timeout, so they retry while the
 * first attempts are stuck and may still complete. Redis: {@code CLIENT PAUSE … ALL}. PostgreSQL and
 * MariaDB: a side connection locks every {@code dupguard*} table ({@code LOCK TABLE … ACCESS
 * EXCLUSIVE} / {@code LOCK TABLES … WRITE}) and holds the lock. Embedded H2: the side connection
 * takes the database exclusively ({@code SET EXCLUSIVE 1}).
 */
final class StoreStall implements Fault {
    static final Duration STALL = Duration.ofSeconds(1);
    /** PostgreSQL's SQLState for a lock not granted within {@code lock_timeout}. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    @Override
    public String name() {
        return "store-stall";
    }

    @Override
    public Optional<String> unsupported(LabEnvironment env) {
        return Optional.empty(); // every database and Redis can stall
    }

    @Override
    public boolean durable(LabEnvironment env) {
        return true;
    }

    @Override
    public void run(LabEnvironment env, long startNanos, long endNanos, SplittableRandom random, Active active)
            throws Exception {
        long span = Math.max(1, (endNanos - startNanos) / 2);
        if (!Faults.waitUntil(startNanos + span / 5 + random.nextLong(span / 2 + 1))) {
            return;
        }
        CompletableFuture<Void> redis = env.redis()
                .map(r -> CompletableFuture.runAsync(() -> r.pause(STALL)))
                .orElse(CompletableFuture.completedFuture(null));
        long from = System.nanoTime();
        stallDatabase(env);
        redis.join();
        active.between(from, System.nanoTime());
    }

    private static void stallDatabase(LabEnvironment env) throws SQLException {
        SqlDialect dialect = env.dialect();
        try (Connection c = env.jdbcUrl().isPresent()
                ? DriverManager.getConnection(env.jdbcUrl().get())
                : env.dataSource().getConnection()) {
            if (dialect == SqlDialect.H2) {
                try (Statement s = c.createStatement()) {
                    s.execute("SET EXCLUSIVE 1");
                    try {
                        Faults.waitUntil(System.nanoTime() + STALL.toNanos());
                    } finally {
                        s.execute("SET EXCLUSIVE 0");
                    }
                }
                return;
            }
            List<String> tables = labTables(c, dialect);
            if (tables.isEmpty()) {
                return;
            }
            if (dialect == SqlDialect.POSTGRESQL) {
                stallPostgres(env, tables);
                return;
            }
            // MariaDB/MySQL: LOCK TABLES takes all its locks at once, in a fixed order.
            try (Statement s = c.createStatement()) {
                s.execute("SET SESSION lock_wait_timeout = 5");
                s.execute("LOCK TABLES " + String.join(" WRITE, ", tables) + " WRITE");
                try {
                    Faults.waitUntil(System.nanoTime() + STALL.toNanos());
                } finally {
                    s.execute("UNLOCK TABLES");
                }
            }
        }
    }

    /**
     * PostgreSQL: one side connection per table, each locking only its own table and holding it for
     * {@link #STALL} from the moment it has it. {@code LOCK TABLE a, b, …} on one connection would
     * take the locks one after another and wait for the next while holding the first, so it could
     * deadlock with a workload transaction that holds one table and wants another (PostgreSQL then
     * aborts one of them; under a busy workload, the stall every time: the soak stopped on it). A
     * connection that holds one lock waits for nothing else, so it is never in a cycle; a table
     * whose lock does not come within the lock timeout is left unstalled.
     */
    private static void stallPostgres(LabEnvironment env, List<String> tables) {
        // A thread per table (the common pool may have one thread on a small machine: the holds
        // must overlap, not queue).
        ExecutorService threads = Executors.newFixedThreadPool(tables.size(), r -> {
            Thread t = new Thread(r, "lab-store-stall");
            t.setDaemon(true);
            return t;
        });
        List<CompletableFuture<Void>> holds = new ArrayList<>();
        for (String table : tables) {
            holds.add(CompletableFuture.runAsync(
                    () -> {
                        try (Connection c = env.jdbcUrl().isPresent()
                                        ? DriverManager.getConnection(
                                                env.jdbcUrl().get())
                                        : env.dataSource().getConnection();
                                Statement s = c.createStatement()) {
                            c.setAutoCommit(false);
                            s.execute("SET LOCAL lock_timeout = '5s'");
                            try {
                                s.execute("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
                            } catch (SQLException e) {
                                if (LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                                    return; // busy past the timeout: this table is not stalled this time
                                }
                                throw e;
                            }
                            Faults.waitUntil(System.nanoTime() + STALL.toNanos());
                            c.commit();
                        } catch (SQLException e) {
                            throw new IllegalStateException("could not stall " + table + ": " + e.getMessage(), e);
                        }
                    },
                    threads));
        }
        try {
            CompletableFuture.allOf(holds.toArray(CompletableFuture[]::new)).join();
        } finally {
            threads.shutdown();
        }
    }

    /** The lab's and dupguard's tables in the current schema (their names are plain identifiers). */
    private static List<String> labTables(Connection c, SqlDialect dialect) throws SQLException {
        String sql = dialect == SqlDialect.POSTGRESQL
                ? "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'dupguard%'"
                : "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()"
                        + " AND table_name LIKE 'dupguard%'";
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String name = rs.getString(1);
                if (name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    out.add(name);
                }
            }
        }
        return out;
    }
}

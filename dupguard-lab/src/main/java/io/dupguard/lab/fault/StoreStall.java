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

/**
 * {@code store-stall}: once per run, at a seeded moment in its first half, every store stops
 * answering for {@link #STALL} — far longer than the clients' timeout, so they retry while the
 * first attempts are stuck and may still complete. Redis: {@code CLIENT PAUSE … ALL}. PostgreSQL and
 * MariaDB: a side connection locks every table the lab created, {@code dupguard_lab_*} ({@code LOCK TABLE … ACCESS
 * EXCLUSIVE} / {@code LOCK TABLES … WRITE}) and holds the lock. Embedded H2: the side connection
 * takes the database exclusively ({@code SET EXCLUSIVE 1}).
 */
final class StoreStall implements Fault {
    static final Duration STALL = Duration.ofSeconds(1);
    /** PostgreSQL's SQLState for a transaction aborted to break a deadlock. */
    private static final String DEADLOCK = "40P01";

    private static final int MAX_LOCK_ATTEMPTS = 10;
    /** How the name of every table the lab creates begins. */
    private static final String LAB_TABLES = "dupguard_lab_";

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
                stallPostgres(c, tables);
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
     * PostgreSQL: one side connection locks every table ({@code LOCK TABLE a, b, … IN ACCESS EXCLUSIVE
     * MODE}). That statement takes its locks one after another and waits for the next while holding
     * the first, so it can close a cycle with a workload transaction that holds one table and wants
     * another; PostgreSQL then aborts whichever waiter runs its deadlock check first, after its own
     * {@code deadlock_timeout}. The side connection raises its own to 60 s where it may (a
     * superuser setting; otherwise the default stays), so that the workload's transaction — an
     * error its client sees and retries — is the one aborted, not the fault (the soak stopped on that
     * under a busy workload). If the fault is aborted all the same, it tries again.
     */
    private static void stallPostgres(Connection c, List<String> tables) throws SQLException {
        try (Statement s = c.createStatement()) {
            try {
                s.execute("SET deadlock_timeout = '60s'"); // session-wide, before the transaction
            } catch (SQLException notPermitted) {
                // not a superuser: the default stays, and an aborted stall is retried below
            }
            c.setAutoCommit(false);
            for (int attempt = 1; ; attempt++) {
                try {
                    s.execute("SET LOCAL lock_timeout = '5s'");
                    s.execute("LOCK TABLE " + String.join(", ", tables) + " IN ACCESS EXCLUSIVE MODE");
                    break;
                } catch (SQLException e) {
                    c.rollback();
                    if (!DEADLOCK.equals(e.getSQLState()) || attempt == MAX_LOCK_ATTEMPTS) {
                        throw e;
                    }
                }
            }
            Faults.waitUntil(System.nanoTime() + STALL.toNanos());
            c.commit();
        }
    }

    /**
     * The lab's tables in the current schema: its workloads' own and the dupguard stores it creates,
     * all named after their trial ({@value #LAB_TABLES}…, plain identifiers). Not the other
     * {@code dupguard*} tables a shared database may hold: another client's transaction on one of
     * them would keep the stall waiting (and fail the fault on its lock timeout), and the stall
     * would stop that client.
     */
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
                if (name.startsWith(LAB_TABLES) && name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    out.add(name);
                }
            }
        }
        return out;
    }
}

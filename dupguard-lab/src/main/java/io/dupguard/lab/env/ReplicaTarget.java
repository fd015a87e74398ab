package io.dupguard.lab.env;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * The PostgreSQL streaming hot standby of {@code --jdbc-replica-url}: where the naive {@code
 * replica-check} strategy looks for duplicates (guarantee K7), and what the {@code
 * replica-lag} fault holds back ({@code pg_wal_replay_pause()}). Opening checks that it is a
 * standby of the lab's database (same {@code system_identifier}), so a lag the lab induces is the
 * lag of that database.
 */
public final class ReplicaTarget implements AutoCloseable {
    /** The naive strategy's reads; the standby of {@code scripts/services} allows 50 sessions. */
    private static final int POOL_SIZE = 8;

    private static final Duration CATCH_UP = Duration.ofSeconds(20);

    private final HikariDataSource dataSource;
    private final String label;

    private ReplicaTarget(HikariDataSource dataSource, String label) {
        this.dataSource = dataSource;
        this.label = label;
    }

    /**
     * Connects to the standby at {@code url} and checks it replicates {@code primary}.
     *
     * @throws UnreachableException naming the URL if it cannot be reached, is no PostgreSQL hot
     *     standby, or is the standby of another primary
     */
    static ReplicaTarget connect(String url, Database primary) {
        String shown = Secrets.mask(url);
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new UnreachableException(
                    "--jdbc-replica-url " + shown + ": only a PostgreSQL streaming standby is supported", null);
        }
        if (primary.url == null || !primary.url.startsWith("jdbc:postgresql:")) {
            throw new UnreachableException(
                    "--jdbc-replica-url needs the standby's primary as --jdbc-url (a PostgreSQL URL)", null);
        }
        try (Connection c = DriverManager.getConnection(url);
                Connection p = primary.dataSource.getConnection()) {
            if (!query(c, "SELECT pg_is_in_recovery()").equals("t")) {
                throw new UnreachableException(
                        "--jdbc-replica-url " + shown + " is no hot standby (pg_is_in_recovery() = false)", null);
            }
            String system = "SELECT system_identifier::text FROM pg_control_system()";
            if (!query(c, system).equals(query(p, system))) {
                throw new UnreachableException(
                        "--jdbc-replica-url " + shown + " is the standby of another cluster than --jdbc-url "
                                + primary.label,
                        null);
            }
        } catch (SQLException e) {
            throw new UnreachableException(
                    "cannot connect to --jdbc-replica-url " + shown + ": " + UnreachableException.rootMessage(e), e);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setPoolName("dupguard-lab-replica");
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(10_000);
        return new ReplicaTarget(new HikariDataSource(config), "PostgreSQL standby " + shown);
    }

    private static String query(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            String v = rs.getString(1);
            return v.equals("true") ? "t" : v.equals("false") ? "f" : v;
        }
    }

    /** Read-only connections to the standby. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** What the report calls it. */
    public String label() {
        return label;
    }

    /**
     * Waits until the standby has replayed everything {@code primary} had written when called
     * (tables a trial just created, say).
     *
     * @throws SQLException if it has not within 20 s, naming the positions and whether replay is paused
     */
    public void awaitReplayed(DataSource primary) throws SQLException {
        String target;
        try (Connection p = primary.getConnection()) {
            target = query(p, "SELECT pg_current_wal_lsn()::text");
        }
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT pg_last_wal_replay_lsn() >= ?::pg_lsn, pg_last_wal_replay_lsn()::text,"
                                + " pg_is_wal_replay_paused()")) {
            ps.setString(1, target);
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        return;
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new SQLException("the standby " + label + " did not replay up to " + target + " within "
                                + CATCH_UP.toSeconds() + " s (at " + rs.getString(2) + ", replay paused: "
                                + rs.getBoolean(3) + ")");
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
    }

    /** {@code pg_wal_replay_pause()}: the standby keeps receiving WAL but applies none of it. */
    public void pauseReplay() throws SQLException {
        call("SELECT pg_wal_replay_pause()");
    }

    /** {@code pg_wal_replay_resume()}: the standby catches up. */
    public void resumeReplay() throws SQLException {
        call("SELECT pg_wal_replay_resume()");
    }

    private void call(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.execute();
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }
}

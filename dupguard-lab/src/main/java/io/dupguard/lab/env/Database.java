package io.dupguard.lab.env;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.SqlDialect;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/**
 * The database every workload writes to: embedded in-memory H2 by default, or the server at a
 * {@code --jdbc-url}. The URL is tried once, with a short login timeout, before the pool is built,
 * so a server that is down fails the command at once with its URL in the message.
 */
final class Database implements AutoCloseable {
    static final int POOL_SIZE = 32;
    /**
     * A second application instance serves a third of the clients. Its pool opens connections as
     * they are needed: the database's sessions (PostgreSQL's 100 by default) are shared.
     */
    static final int INSTANCE_POOL_SIZE = 8;

    private static final int LOGIN_TIMEOUT_SECONDS = 5;

    final HikariDataSource dataSource;
    final SqlDialect dialect;
    final String label;
    final String url; // null for the embedded database
    final TrackedConnections tracked; // null for the embedded database

    private Database(
            HikariDataSource dataSource, SqlDialect dialect, String label, String url, TrackedConnections tracked) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.label = label;
        this.url = url;
        this.tracked = tracked;
    }

    /** A private in-memory H2 database in PostgreSQL mode, gone when the process ends. */
    static Database embedded() {
        String url = "jdbc:h2:mem:dupguard-lab-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL";
        return new Database(pool(url, null, POOL_SIZE), SqlDialect.H2, "H2 (embedded, in-memory)", null, null);
    }

    /**
     * The database at {@code url}.
     *
     * @throws UnreachableException naming the URL (secrets masked) if it cannot be used
     */
    static Database connect(String url) {
        return connect(url, POOL_SIZE);
    }

    /** As {@link #connect(String)}, with a pool of {@code poolSize}. */
    static Database connect(String url, int poolSize) {
        String shown = Secrets.mask(url);
        SqlDialect dialect;
        DriverManager.setLoginTimeout(LOGIN_TIMEOUT_SECONDS);
        try {
            DriverManager.getDriver(url);
        } catch (SQLException e) {
            throw new UnreachableException(
                    "no JDBC driver for --jdbc-url " + shown
                            + "; the lab bundles H2 (jdbc:h2:), PostgreSQL (jdbc:postgresql:) and MariaDB/MySQL (jdbc:mariadb:)",
                    e);
        }
        try (Connection c = DriverManager.getConnection(url)) {
            dialect = SqlDialect.detect(c);
            if (dialect == SqlDialect.H2 && !postgresMode(c)) {
                throw new UnreachableException(
                        "the H2 database at " + shown + " must run in PostgreSQL mode: add ;MODE=PostgreSQL", null);
            }
        } catch (SQLException e) {
            throw new UnreachableException(
                    "cannot connect to --jdbc-url " + shown + ": " + UnreachableException.rootMessage(e), e);
        } catch (IllegalArgumentException e) {
            throw new UnreachableException("cannot use --jdbc-url " + shown + ": " + e.getMessage(), e);
        }
        TrackedConnections tracked = new TrackedConnections(url, dialect);
        return new Database(pool(url, tracked, poolSize), dialect, shown, url, tracked);
    }

    private static boolean postgresMode(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                        "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'MODE'");
                ResultSet rs = ps.executeQuery()) {
            return rs.next() && "PostgreSQL".equalsIgnoreCase(rs.getString(1));
        }
    }

    private static HikariDataSource pool(String url, TrackedConnections tracked, int size) {
        HikariConfig config = new HikariConfig();
        if (tracked == null) {
            config.setJdbcUrl(url);
        } else {
            config.setDataSource(tracked); // the same driver, with each connection's server-side id
        }
        config.setPoolName("dupguard-lab");
        config.setMaximumPoolSize(size);
        if (size < POOL_SIZE) {
            config.setMinimumIdle(1);
        }
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    /**
     * Dies like a process: the pool's connections in use are aborted mid-statement (their
     * uncommitted transactions roll back on the server), the idle ones closed, and every later
     * request for a connection fails.
     */
    void crash() {
        dataSource.close(); // HikariCP aborts the connections in use (Connection.abort) on shutdown
    }

    @Override
    public void close() {
        dataSource.close();
    }
}

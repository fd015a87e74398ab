package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, once when a store starts, that the JDBC driver prepares statements on the server, and
 * logs a warning naming the setting when it does not. Every dupguard statement is a short
 * parameterised one sent again and again: parsed once per connection it costs the database
 * markedly less CPU than parsed as text on every call (measured on MariaDB: docs/benchmarks.md).
 *
 * <ul>
 *   <li>MySQL/MariaDB: Connector/J and MariaDB Connector/J prepare on the client by default; the
 *       check sends one prepared {@code SELECT ?} and reads the session's {@code Com_stmt_prepare}
 *       counter before and after. Fix: {@code useServerPrepStmts=true} on the JDBC URL (or the
 *       pool's data-source properties), keeping the driver's statement cache on.
 *   <li>PostgreSQL: pgJDBC prepares on the server after {@code prepareThreshold} uses (default 5);
 *       {@code prepareThreshold=0} (common behind PgBouncer in transaction mode) turns that off.
 *   <li>H2: embedded; nothing to check.
 * </ul>
 *
 * A check that cannot run (no privilege, another driver) logs at debug level and is skipped: it
 * never keeps a store from starting.
 */
final class DriverSettings {
    private static final Logger LOG = LoggerFactory.getLogger(DriverSettings.class);

    private DriverSettings() {}

    static void warnIfSlow(Connection c, SqlDialect dialect) {
        try {
            String problem =
                    switch (dialect) {
                        case MYSQL -> mysqlProblem(c);
                        case POSTGRESQL -> postgresProblem(c);
                        case H2 -> null;
                    };
            if (problem != null) {
                LOG.warn("dupguard: {} (see docs/idempotency.md, \"Driver settings\")", problem);
            }
        } catch (SQLException | ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.debug("dupguard: could not check the JDBC driver's settings", e);
        }
    }

    /** Null if statements are prepared on the server, else what to change. */
    static String mysqlProblem(Connection c) throws SQLException {
        long before = comStmtPrepare(c);
        // A text of its own, so that no driver cache already holds it.
        try (PreparedStatement ps =
                c.prepareStatement("SELECT ? /* dupguard driver check " + System.nanoTime() + " */")) {
            ps.setInt(1, 1);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
            }
        }
        if (comStmtPrepare(c) > before) {
            return null;
        }
        return "the MySQL/MariaDB driver prepares statements on the client, so the server parses every"
                + " statement as text: add useServerPrepStmts=true to the JDBC URL (or the pool's"
                + " data-source properties)";
    }

    private static long comStmtPrepare(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Com_stmt_prepare'")) {
            return rs.next() ? rs.getLong(2) : -1;
        }
    }

    /** Null if pgJDBC prepares on the server, else what to change. */
    static String postgresProblem(Connection c) throws SQLException, ReflectiveOperationException {
        Class<?> pg =
                Class.forName("org.postgresql.PGConnection", false, c.getClass().getClassLoader());
        if (!c.isWrapperFor(pg)) {
            return null;
        }
        Object connection = c.unwrap(pg);
        int threshold = (Integer) pg.getMethod("getPrepareThreshold").invoke(connection);
        if (threshold > 0) {
            return null;
        }
        return "pgJDBC's prepareThreshold is " + threshold + ", so every statement is parsed and planned"
                + " anew: leave it at its default (5) unless a transaction-mode PgBouncer needs 0";
    }
}

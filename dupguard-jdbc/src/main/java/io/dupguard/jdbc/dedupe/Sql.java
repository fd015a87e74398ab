package io.dupguard.jdbc.dedupe;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.List;

/** Small JDBC helpers for the clean-up phases. */
final class Sql {
    private Sql() {}

    @FunctionalInterface
    interface Work<R> {
        R run(Connection c) throws SQLException;
    }

    /** Runs {@code work} as one transaction: commits, or rolls back and rethrows. */
    static <R> R inTransaction(Connection c, Work<R> work) throws SQLException {
        c.setAutoCommit(false);
        try {
            R result = work.run(c);
            c.commit();
            return result;
        } catch (SQLException | RuntimeException | Error e) {
            try {
                c.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, 1, params);
            return ps.executeUpdate();
        }
    }

    static long queryLong(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, 1, params);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    static int bind(PreparedStatement ps, int first, Object... params) throws SQLException {
        int i = first;
        for (Object p : params) {
            if (p instanceof List<?> list) {
                for (Object o : list) {
                    ps.setObject(i++, o);
                }
            } else {
                ps.setObject(i++, p);
            }
        }
        return i;
    }

    /** {@code ?, ?, ?} for a list of {@code n} values. */
    static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    /**
     * A failure a batch can simply run again after: deadlock, serialization failure, lock wait
     * timeout. Everything else stops the phase.
     */
    static boolean isTransient(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            String state = x.getSQLState();
            int code = x.getErrorCode();
            if ("40001".equals(state)
                    || "40P01".equals(state)
                    || "55P03".equals(state)
                    || code == 1205
                    || code == 1213) {
                return true;
            }
        }
        return false;
    }

    /** A missing privilege: PostgreSQL 42501, MySQL/MariaDB 1142/1143/1044/1227, H2 90096. */
    static boolean isPermission(SQLException e) {
        int code = e.getErrorCode();
        return "42501".equals(e.getSQLState())
                || code == 1142
                || code == 1143
                || code == 1044
                || code == 1227
                || code == 90096;
    }
}

package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Runs statements as one transaction at READ COMMITTED on MySQL/MariaDB, whose default REPEATABLE
 * READ would take gap locks on the ranges a claim or purge scans and make concurrent enqueues and
 * completions wait on them. Elsewhere (READ COMMITTED already) only the transaction is added. The
 * connection's settings are restored afterwards.
 */
final class ReadCommitted {
    private ReadCommitted() {}

    @FunctionalInterface
    interface SqlSupplier<R> {
        R get() throws SQLException;
    }

    /**
     * MySQL/MariaDB in autocommit mode: {@code SET TRANSACTION ISOLATION LEVEL} (for the next
     * transaction only), {@code START TRANSACTION}, the work, {@code COMMIT}: no session setting
     * changes, and two round trips fewer than switching isolation and autocommit and back.
     */
    private static <R> R runMysql(Connection c, SqlSupplier<R> work) throws SQLException {
        try (java.sql.Statement st = c.createStatement()) {
            st.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
            st.execute("START TRANSACTION");
            try {
                R result = work.get();
                st.execute("COMMIT");
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                try {
                    st.execute("ROLLBACK");
                } catch (SQLException r) {
                    e.addSuppressed(r);
                }
                throw e;
            }
        }
    }

    static <R> R run(Connection c, SqlDialect dialect, SqlSupplier<R> work) throws SQLException {
        return run(c, dialect, false, work);
    }

    /**
     * {@code sharded}: through ShardingSphere-JDBC the transaction is begun and ended through the
     * JDBC API, which it applies to every shard's connection; a {@code START TRANSACTION} sent as
     * SQL is a statement it routes like any other.
     */
    static <R> R run(Connection c, SqlDialect dialect, boolean sharded, SqlSupplier<R> work) throws SQLException {
        if (dialect == SqlDialect.MYSQL && c.getAutoCommit() && !sharded) {
            return runMysql(c, work);
        }
        int isolation = c.getTransactionIsolation();
        boolean changeIsolation =
                dialect == SqlDialect.MYSQL && isolation != Connection.TRANSACTION_READ_COMMITTED && c.getAutoCommit();
        boolean own = c.getAutoCommit();
        if (changeIsolation) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        try {
            if (own) {
                c.setAutoCommit(false);
            }
            try {
                R result = work.get();
                if (own) {
                    c.commit();
                }
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                if (own) {
                    try {
                        c.rollback();
                    } catch (SQLException r) {
                        e.addSuppressed(r);
                    }
                }
                throw e;
            } finally {
                if (own) {
                    c.setAutoCommit(true);
                }
            }
        } finally {
            if (changeIsolation) {
                c.setTransactionIsolation(isolation);
            }
        }
    }
}

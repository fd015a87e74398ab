package io.dupguard.jdbc;

import io.dupguard.DupguardException;
import io.dupguard.ReadOnlyStoreException;
import io.dupguard.StoreUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * What every dupguard JDBC store shares: a data source, the dialect detected on first use, the
 * optional creation of its table from the shipped DDL, the refusal of a read-only server ({@link
 * ReadOnlyCheck}: asked once, before the store's first statement) and the mapping of {@link
 * SQLException} to {@link StoreUnavailableException} or, for a write refused as read-only, {@link
 * ReadOnlyStoreException}.
 */
final class JdbcAccess {
    private static final int ER_LOCK_DEADLOCK = 1213;
    private static final int ER_UNKNOWN_COM_ERROR = 1047;

    private final DataSource dataSource;
    private final String table;
    private final SchemaInitializer schema;
    private volatile SqlDialect dialect;
    /** Whether the connections are ShardingSphere-JDBC's ({@link ShardingProxy}); known after the first use. */
    private volatile boolean sharded;
    /** Set once the server was found to take writes; a later failover shows in the write errors. */
    private volatile boolean writable;

    JdbcAccess(DataSource dataSource, SqlDialect dialect, String defaultTable, String table, boolean createSchema) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.dialect = dialect;
        this.table = SqlIdentifier.check(table, "tableName");
        this.schema = createSchema ? new SchemaInitializer(defaultTable, this.table) : null;
    }

    DataSource dataSource() {
        return dataSource;
    }

    String table() {
        return table;
    }

    /** Whether the store was built to create its table if it is missing. */
    boolean createsSchema() {
        return schema != null;
    }

    /**
     * The dialect, detecting it, refusing a read-only server and creating the table on first use.
     *
     * @throws ReadOnlyStoreException if the server behind {@code c} takes no writes
     */
    SqlDialect dialect(Connection c) throws SQLException {
        SqlDialect d = requireWritable(c);
        if (schema != null) {
            schema.ensure(c, d);
        }
        return d;
    }

    private SqlDialect requireWritable(Connection c) throws SQLException {
        SqlDialect d = dialect;
        if (d == null) {
            d = SqlDialect.detect(c);
            dialect = d;
        }
        if (!writable) {
            sharded = ShardingProxy.is(c);
            ReadOnlyCheck.requireWritable(c, d, storeName());
            writable = true;
        }
        return d;
    }

    /**
     * Whether the data source is ShardingSphere-JDBC's, as the first {@link #dialect(Connection)}
     * found: statements must then name each row's key (docs/scaling-sharding.md).
     */
    boolean sharded() {
        return sharded;
    }

    String storeName() {
        SqlDialect d = dialect;
        return "jdbc(" + (d == null ? "?" : d.id()) + ")";
    }

    @FunctionalInterface
    interface SqlFunction<R> {
        R apply(Connection c) throws SQLException;
    }

    @FunctionalInterface
    interface SqlRunnable {
        void run() throws SQLException;
    }

    /** Runs {@code fn} on a pooled connection as one unit, committing if the pool hands out transactions. */
    <R> R withConnection(String operation, SqlFunction<R> fn) {
        return run(operation, null, fn, false);
    }

    /**
     * As {@link #withConnection(String, SqlFunction)}; the error message names {@code operation}
     * and {@code subject} (a key, say), joined only if it is needed: not on every call.
     */
    <R> R withConnection(String operation, Object subject, SqlFunction<R> fn) {
        return run(operation, subject, fn, false);
    }

    /**
     * Tries of a unit the database rolled back as transient ({@link #isTransient}): enough for the
     * certification conflicts of 32 writers on three Galera nodes deducting from one row (8 are
     * not always), a bound all the same — about 0.7 s of pauses at the most.
     */
    static final int TRANSIENT_ATTEMPTS = 16;

    /**
     * Like {@link #withConnection}, running {@code fn} again (up to {@code attempts} times) when the
     * database rolled it back as transient ({@link #isTransient}) — the failed unit changed
     * nothing, so running it again re-decides from what the database holds now.
     */
    <R> R withConnectionRetryingTransient(String operation, Object subject, SqlFunction<R> fn, int attempts) {
        return retryingTransient(attempts, () -> run(operation, subject, fn, false));
    }

    /** {@link #inTransaction}, run again like {@link #withConnectionRetryingTransient}. */
    <R> R inTransactionRetryingTransient(String operation, SqlFunction<R> fn, int attempts) {
        return retryingTransient(attempts, () -> run(operation, null, fn, true));
    }

    private static <R> R retryingTransient(int attempts, Supplier<R> unit) {
        for (int attempt = 1; ; attempt++) {
            try {
                return unit.get();
            } catch (StoreUnavailableException e) {
                if (!(e.getCause() instanceof SQLException sql && isTransient(sql)) || attempt >= attempts) {
                    throw e;
                }
                pauseBeforeRetry(attempt);
            }
        }
    }

    /**
     * A short random pause, growing with the attempt (up to 2 ms, 4 ms, … 64 ms): the writer that
     * won gets to commit — on Galera, the other nodes to apply its write set — and tries that
     * collided once do not collide again in step.
     */
    static void pauseBeforeRetry(int attempt) {
        long boundMicros = 1000L << Math.min(attempt, 6);
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(boundMicros) * 1000L);
    }

    /**
     * Rolled back, may run again: a deadlock victim or serialization failure (SQLState 40001,
     * 40P01; MySQL/MariaDB error 1213, also what a Galera transaction gets when it loses
     * certification to another node's write), or a Galera node that is not ready to serve
     * (error 1047 "WSREP has not yet prepared node for application use", while it rejoins).
     */
    static boolean isTransient(SQLException e) {
        String state = e.getSQLState();
        if ("40001".equals(state) || "40P01".equals(state)) {
            return true;
        }
        int code = e.getErrorCode();
        return code == ER_LOCK_DEADLOCK
                || (code == ER_UNKNOWN_COM_ERROR
                        && e.getMessage() != null
                        && e.getMessage().contains("WSREP"));
    }

    /** Runs {@code fn} in a new transaction on a pooled connection; commits, or rolls back on any failure. */
    <R> R inTransaction(String operation, SqlFunction<R> fn) {
        return run(operation, null, fn, true);
    }

    private <R> R run(String operation, Object subject, SqlFunction<R> fn, boolean transaction) {
        try (Connection c = dataSource.getConnection()) {
            requireWritable(c);
            boolean autoCommit = c.getAutoCommit();
            if (transaction && autoCommit) {
                c.setAutoCommit(false);
            }
            boolean commit = transaction || !autoCommit;
            boolean discarded = false;
            try {
                R result = fn.apply(c);
                if (commit) {
                    c.commit();
                }
                return result;
            } catch (UserFailure e) {
                if (commit) {
                    rollback(c, e.getCause());
                }
                throw sneaky(e.getCause());
            } catch (SQLException e) {
                if (ReadOnlyCheck.isReadOnlyRefusal(e)) {
                    discarded = true;
                    discard(c, e);
                } else if (commit) {
                    rollback(c, e);
                }
                throw e;
            } catch (RuntimeException | Error e) {
                if (commit) {
                    rollback(c, e);
                }
                throw e;
            } finally {
                if (transaction && autoCommit && !discarded) {
                    c.setAutoCommit(true);
                }
            }
        } catch (SQLException e) {
            throw failure(operation, subject, e);
        }
    }

    /**
     * Runs the caller's own work inside {@link #withConnection}/{@link #inTransaction} so that its
     * exceptions — even a {@link SQLException} — reach the caller unchanged instead of being taken
     * for a store failure.
     */
    static <T, E extends Exception> T callUser(SqlWork<T, E> work, Connection c) {
        try {
            return work.apply(c);
        } catch (RuntimeException | Error e) {
            throw new UserFailure(e);
        } catch (Exception e) {
            throw new UserFailure(e);
        }
    }

    /** Carries the caller's exception through the store's error mapping. */
    private static final class UserFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UserFailure(Throwable cause) {
            super(null, cause, false, false);
        }
    }

    @SuppressWarnings("unchecked")
    private static <X extends Throwable> RuntimeException sneaky(Throwable t) throws X {
        throw (X) t;
    }

    /**
     * Drops a connection whose server refused a write as read-only — after a failover, a
     * connection still open to the demoted primary — so the pool does not hand it out again: the
     * next unit (a completion retried within its lease) takes a new connection, which reaches
     * whatever server the address leads to now, and is checked again before its first statement.
     * {@link Connection#abort} is JDBC's way to end a connection; a pool discards a connection
     * closed under it when it comes back (HikariCP at once, or when it next checks it).
     */
    private void discard(Connection c, SQLException cause) {
        writable = false;
        try {
            c.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private static void rollback(Connection c, Throwable cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * The exception for {@code e}: {@link ReadOnlyStoreException} if the server refused a write as
     * read-only, else {@link StoreUnavailableException}; the message names {@code operation} and
     * {@code subject}.
     */
    DupguardException failure(String operation, Object subject, SQLException e) {
        String what = operation + (subject == null ? "" : " " + subject);
        if (ReadOnlyCheck.isReadOnlyRefusal(e)) {
            return ReadOnlyCheck.refused(storeName(), what, e);
        }
        return new StoreUnavailableException(
                storeName(), what + " failed: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }
}

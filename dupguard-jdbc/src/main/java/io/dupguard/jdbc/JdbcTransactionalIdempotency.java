package io.dupguard.jdbc;

import io.dupguard.DupguardException;
import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.BatchWork;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.ClaimLostException;
import io.dupguard.idempotency.FailurePolicy;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.internal.Checks;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Idempotency in the caller's database transaction: the claim row, the caller's own SQL and the
 * completion are written on <b>one</b> connection and commit together, so a crash or rollback at
 * any point leaves either nothing or everything — no claimed-but-never-completed keys, no effect
 * without a record.
 *
 * <pre>{@code
 * JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(store);
 * Outcome<Long> out = tx.executeInTransaction(key, fingerprint, Long.class,
 *         c -> insertOrder(c, order));          // commits once, with the record
 * }</pre>
 *
 * <p>The whole transactional algorithm is in this file; the rows and statements are the store's,
 * lent through one package-private seam ({@code TransactionalSql}). The core executor ({@link
 * Idempotency}) drives the steps below through an {@link io.dupguard.idempotency.IdempotencyStore}
 * bound to the one connection ({@code BoundStore} here), exactly as it drives the autocommit store.
 *
 * <p><b>{@link #executeInTransaction}</b>, in a transaction this class owns:
 *
 * <ol>
 *   <li>Borrow a connection from the store's pool. Nothing is begun yet ({@code OwnTransaction}
 *       begins only before the first write).
 *   <li>Read the key's row, plain, in autocommit. Live ⇒ replay it (or report it in flight): one
 *       statement, no transaction. Expired ⇒ begin and take it over (as step 3, claim first).
 *   <li>No row ⇒ begin the transaction, then by {@link ClaimMode}: {@link ClaimMode#CLAIM_FIRST}
 *       inserts the claim row now, its expiry the retention (an uncommitted row is invisible, so a
 *       lease would protect nothing); a concurrent duplicate's insert waits on its row lock.
 *       {@link ClaimMode#OPTIMISTIC} writes nothing yet (a <em>deferred</em> claim).
 *   <li>Run the work on the connection.
 *   <li>Record the result: a claimed row is completed by an update that keeps the expiry, changing
 *       no indexed column; a deferred claim inserts the finished row if absent. That insert meeting
 *       a row another transaction committed ⇒ roll back (undoing the work) and claim again from
 *       step 2, which replays the other call's result.
 *   <li>Commit; return the connection.
 * </ol>
 *
 * <p><b>{@link #execute(Connection, IdempotencyKey, Fingerprint, Class, SqlWork) execute(connection,
 * …)}</b>, in the caller's open transaction, which it never ends:
 *
 * <ol>
 *   <li>Under a failure policy that stores failures: set a savepoint (and on MySQL/MariaDB delete an
 *       expired row of the key in autocommit, see "Failures").
 *   <li>Claim the key with the store's claim (insert; else a locking re-read; expired ⇒ takeover),
 *       its expiry the retention; on MariaDB one {@code INSERT … RETURNING} answers with the newest
 *       row itself. Live row ⇒ replay.
 *   <li>Run the work; complete the row keeping its expiry. The caller commits.
 * </ol>
 *
 * <p><b>A {@code Void} result is written by the claim.</b> With the result type {@code Void} (a
 * message listener's) the record is known before the work: the claim of {@link #execute(Connection,
 * IdempotencyKey, Fingerprint, Class, SqlWork) execute(connection, …)}, of {@link #executeBatch} and
 * of a claim-first (or takeover) {@link #executeInTransaction} inserts the row already completed —
 * the codec's encoding of {@code null}, the expiry the retention, the claim's owner token kept — and
 * the completion writes nothing: one statement per key (or per batch) instead of an insert and an
 * update. The row commits or rolls back with the work, so nothing else changes: a rollback leaves
 * nothing, a concurrent duplicate waits on the row's lock, then replays or claims; a failure the
 * policy does not call final deletes the row (a batch's failed entry) or rolls it back; a final
 * failure replaces it. Only a call nested in the work on the same key, in the same transaction, sees
 * the row completed (a replay of {@code null}) instead of in flight.
 *
 * <p><b>Failures</b> (both modes). A failure the {@link FailurePolicy} does not call final is
 * undone by the rollback that follows (own transaction: here; caller's: by the caller) — the claim
 * goes with the work; a deferred claim that failed looks whether a concurrent call recorded the key
 * meanwhile and replays that. A <em>final</em> failure ({@link FailurePolicy#storeFinal}) is
 * recorded <em>outside</em> the transaction that is rolled back, so a retry replays it ({@link
 * io.dupguard.idempotency.ReplayedFailureException}) instead of running the work again: in its own
 * transaction, it rolls back and records the failure in a short transaction of its own on the same
 * connection; in the caller's, it rolls back to the savepoint of step 1 and records the failure on
 * a connection of the store's pool, committed at once — the caller then rolls back as usual. On
 * MySQL/MariaDB the savepoint mode deletes an expired row first because InnoDB keeps row locks taken
 * after a savepoint until the transaction ends. If another call recorded the key meanwhile, its
 * result is replayed instead.
 *
 * <p><b>What runs when.</b> The <em>committed</em> effect is single per key in every mode: exactly
 * one transaction that ran the work commits with the key's record. Whether the <em>callback</em>
 * itself can run more than once under concurrent duplicates depends on the claim:
 *
 * <ul>
 *   <li>{@link ClaimMode#OPTIMISTIC} (the default of {@link #of(JdbcIdempotencyStore)}): a recorded
 *       key costs one read; an unrecorded one the work plus one insert-if-absent — the statements
 *       of a bare "seen it?" check plus insert, as Camel's {@code JdbcMessageIdRepository} sends,
 *       while also storing the result. <b>Concurrent calls on one key that all find it unrecorded
 *       all run the callback</b> (16 threads on one key with 20 ms of work: up to 16 runs): each
 *       later insert waits for the first transaction, and once that commits the later transactions
 *       are rolled back (their work undone) and those calls replay the first one's result — {@link
 *       io.dupguard.idempotency.Outcome#isReplay()} is then true although this call's callback ran
 *       (and was undone). A duplicate whose work fails because of the winner's rows (a unique order
 *       number, say) replays too. Use this mode only when the work touches nothing but this
 *       transaction and is cheap to run and undo.
 *   <li>{@link ClaimMode#CLAIM_FIRST}: a concurrent duplicate's insert waits on the claim row's
 *       lock until the first transaction ends, then replays its result (or, after a rollback,
 *       claims and runs): <b>the callback runs once per key</b>, at the price of one more statement
 *       per first call. Use it for work that is expensive, or that calls anything outside the
 *       transaction (a payment provider, a message broker).
 *   <li>{@link #execute(Connection, IdempotencyKey, Fingerprint, Class, SqlWork) execute(connection,
 *       …)} always claims first: the callback runs once per key.
 * </ul>
 *
 * <p>While a claim-first duplicate waits, it holds a pooled connection; the wait is bounded by the
 * database's lock-wait timeout ({@code innodb_lock_wait_timeout}, 50 s by default on MariaDB;
 * {@code lock_timeout} on PostgreSQL, unbounded by default), not by the {@link
 * io.dupguard.idempotency.InFlightPolicy}: a claim that is not committed is invisible, so no
 * duplicate can see it as "in flight". That policy therefore comes into play only when the same
 * table is also used in autocommit mode, and only in {@link #executeInTransaction}, whose wait
 * reads in autocommit; in the caller's transaction a key in flight is refused at once. The work must not commit or roll back the connection
 * itself.
 *
 * <p>Thread-safe; each call uses only the connection it is given.
 */
public final class JdbcTransactionalIdempotency {
    /** How {@link #executeInTransaction} claims a key it found unrecorded. */
    public enum ClaimMode {
        /**
         * Run the work, then record the finished row; concurrent duplicates may run the work too
         * (undone by rollback). Fewest statements.
         */
        OPTIMISTIC,
        /**
         * Insert the key's row in the transaction before the work; concurrent duplicates wait on its
         * row lock and never run the work while it is in flight.
         */
        CLAIM_FIRST
    }

    /** Detects the dialect and creates the table (if asked) on a pool connection, once. */
    private final Runnable prepare;

    private final TransactionalSql sql;
    /** The processed-messages table's executor: {@code Void} results only, failures released. */
    private final boolean processedTable;

    private final IdempotencyConfig config;
    /** {@link #config} refusing a key in flight at once: the caller's transaction must not wait on it. */
    private final IdempotencyConfig callerConfig;

    private final boolean storesFailures;
    private final ClaimMode claimMode;
    /** The codec's encoding of a null result: a {@code Void} call's record, written by its claim; null if unencodable. */
    private final byte[] voidPayload;

    private volatile boolean storeReady;

    private JdbcTransactionalIdempotency(JdbcIdempotencyStore store, IdempotencyConfig config, ClaimMode claimMode) {
        Objects.requireNonNull(store, "store");
        this.prepare = store::dialect;
        this.sql = store.transactionalSql();
        this.processedTable = false;
        this.claimMode = Objects.requireNonNull(claimMode, "claimMode");
        this.config = ownConfig(config);
        this.callerConfig = callerConfig(this.config);
        this.storesFailures = this.config.failurePolicy() != FailurePolicy.releaseOnFailure();
        this.voidPayload = encodedNull(this.config);
    }

    private JdbcTransactionalIdempotency(
            JdbcProcessedMessages processed, IdempotencyConfig config, ClaimMode claimMode) {
        Objects.requireNonNull(processed, "processed");
        Objects.requireNonNull(config, "config");
        this.claimMode = Objects.requireNonNull(claimMode, "claimMode");
        if (config.failurePolicy() != FailurePolicy.releaseOnFailure()) {
            throw new IllegalArgumentException("a processed-messages table (" + processed.table() + ") stores no"
                    + " failures: use FailurePolicy.releaseOnFailure(), or a JdbcIdempotencyStore to store them");
        }
        this.config = ownConfig(config);
        this.callerConfig = callerConfig(this.config);
        this.storesFailures = false;
        this.voidPayload = encodedNull(this.config);
        if (voidPayload == null) {
            throw new IllegalArgumentException("a processed-messages table records Void results, and the codec "
                    + this.config.codec() + " cannot encode null");
        }
        this.processedTable = true;
        this.prepare = processed::ensureReady;
        this.sql = processed.transactionalSql(voidPayload);
    }

    /**
     * A connection cannot be shared with a renewal thread, and an uncommitted result must not be
     * served from a local cache, so both are off whatever the base config says.
     */
    private static IdempotencyConfig ownConfig(IdempotencyConfig config) {
        return IdempotencyConfig.from(config)
                .renewLease(false)
                .localCacheSize(0)
                .build();
    }

    /** {@code config} refusing a key in flight at once: the caller's transaction must not wait on it. */
    private static IdempotencyConfig callerConfig(IdempotencyConfig config) {
        return IdempotencyConfig.from(config)
                .inFlightPolicy(io.dupguard.idempotency.InFlightPolicy.reject())
                .build();
    }

    private static byte[] encodedNull(IdempotencyConfig config) {
        try {
            return config.codec().encode(null);
        } catch (RuntimeException unencodable) {
            return null; // such a codec's Void calls claim and complete in two writes
        }
    }

    /** The record a claim of {@code type} can write at once: the null result's, for {@code Void}; else null. */
    private byte[] donePayload(Class<?> type) {
        return type == Void.class || type == void.class ? voidPayload : null;
    }

    /**
     * Default config, {@link ClaimMode#OPTIMISTIC}.
     *
     * @param store the store whose table and data source are used; not null
     * @return a thread-safe executor
     */
    public static JdbcTransactionalIdempotency of(JdbcIdempotencyStore store) {
        return new JdbcTransactionalIdempotency(store, IdempotencyConfig.ofDefaults(), ClaimMode.OPTIMISTIC);
    }

    /**
     * Uses {@code config}'s retention, failure policy, codec and listener; {@link
     * ClaimMode#OPTIMISTIC}.
     *
     * @param store the store whose table and data source are used; not null
     * @param config the configuration; not null
     * @return a thread-safe executor
     */
    public static JdbcTransactionalIdempotency of(JdbcIdempotencyStore store, IdempotencyConfig config) {
        return new JdbcTransactionalIdempotency(store, config, ClaimMode.OPTIMISTIC);
    }

    /**
     * Uses {@code config}'s retention, failure policy, codec and listener, and {@code claimMode} in
     * {@link #executeInTransaction}.
     *
     * @param store the store whose table and data source are used; not null
     * @param config the configuration; not null
     * @param claimMode how {@link #executeInTransaction} claims the key; not null
     * @return a thread-safe executor
     * @throws NullPointerException if an argument is null
     */
    public static JdbcTransactionalIdempotency of(
            JdbcIdempotencyStore store, IdempotencyConfig config, ClaimMode claimMode) {
        return new JdbcTransactionalIdempotency(store, config, claimMode);
    }

    /**
     * An executor on a {@linkplain JdbcProcessedMessages processed-messages table}: default config,
     * {@link ClaimMode#CLAIM_FIRST}.
     *
     * @param processed the table; not null
     * @return a thread-safe executor of {@code Void} calls
     * @see #of(JdbcProcessedMessages, IdempotencyConfig)
     */
    public static JdbcTransactionalIdempotency of(JdbcProcessedMessages processed) {
        return of(processed, IdempotencyConfig.ofDefaults());
    }

    /**
     * An executor on a {@linkplain JdbcProcessedMessages processed-messages table}, the lean layout
     * of a message listener's dedup: every call's result type must be {@code Void} (a row is a
     * processed message, written by its claim), and a failure is never stored (the rollback takes
     * the row away with the work). {@link #executeInTransaction} claims first ({@link
     * ClaimMode#CLAIM_FIRST}). The configuration's retention, codec and listener apply.
     *
     * @param processed the table; not null
     * @param config the configuration; its failure policy must be {@link
     *     FailurePolicy#releaseOnFailure()}; not null
     * @return a thread-safe executor of {@code Void} calls
     * @throws IllegalArgumentException if the failure policy stores failures, or the codec cannot
     *     encode {@code null}
     */
    public static JdbcTransactionalIdempotency of(JdbcProcessedMessages processed, IdempotencyConfig config) {
        return new JdbcTransactionalIdempotency(processed, config, ClaimMode.CLAIM_FIRST);
    }

    /**
     * The claim mode of {@link #executeInTransaction}.
     *
     * @return the claim mode; never null
     */
    public ClaimMode claimMode() {
        return claimMode;
    }

    /**
     * Runs {@code work} inside the transaction of {@code connection}, which the caller owns, unless
     * the key is recorded (then replays). The key is claimed first, so the callback runs once per
     * key: a concurrent duplicate waits for this transaction to end. This method never commits or
     * rolls back (except to its own savepoint under a storing failure policy); the caller commits on
     * success and rolls back when this throws.
     *
     * <p>A key claimed in flight <em>in autocommit</em> (the same table used by {@link
     * io.dupguard.idempotency.Idempotency} on this store elsewhere) is refused at once with a {@link
     * io.dupguard.idempotency.RequestInFlightException}, whatever the configuration's {@link
     * io.dupguard.idempotency.InFlightPolicy}: the claim's re-read holds the row's lock, so waiting
     * here would keep the holder from completing or releasing it. Roll back and wait outside the
     * transaction (the Spring integration's transactional mode does, for the integration's in-flight
     * wait), then call again.
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param connection the caller's connection to the store's database, autocommit off; not null
     * @param key the operation's key; not null
     * @param fingerprint the request's fingerprint, or {@link Fingerprint#none()}; not null
     * @param type the result type, used to decode replays; not null
     * @param work the operation, given {@code connection}; not null
     * @return the result and whether this call ran the work or replayed it; never null
     * @throws IllegalStateException if the connection is in autocommit mode
     * @throws E what {@code work} threw
     */
    public <T, E extends Exception> Outcome<T> execute(
            Connection connection, IdempotencyKey key, Fingerprint fingerprint, Class<T> type, SqlWork<T, E> work)
            throws E {
        checkType(type);
        checkCallerTransaction(connection);
        return run(connection, null, key, fingerprint, type, work);
    }

    /**
     * {@link Idempotency#executeBatch} inside the transaction of {@code connection}, which the
     * caller owns: the batch's claim rows (one statement on PostgreSQL and MariaDB, as in autocommit,
     * their expiry the retention), the work's writes and the completion (one statement on
     * PostgreSQL) are all in that transaction, so they commit or roll back together — a table of
     * processed messages that cannot disagree with the effects. The work reports each claimed entry
     * through {@link BatchWork.Progress}: done entries are completed, failed ones released (or, when
     * the {@link FailurePolicy} calls the failure final, recorded as failed) in the same transaction;
     * a failed entry's own writes are the work's to undo (a savepoint per entry, say). When the work
     * throws, the exception propagates and the caller rolls back: nothing of the batch remains.
     * Concurrent duplicates wait on the claim rows' locks until this transaction ends, then replay
     * (commit) or claim (rollback). This method never commits or rolls back.
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param connection the caller's connection to the store's database, autocommit off; not null
     * @param entries the batch, 1 to {@link Idempotency#MAX_BATCH_SIZE} entries; not null
     * @param type the result type, used to encode results and decode replays; not null
     * @param work the work on the claimed entries, which writes through {@code connection}; not null
     * @return one result per entry, in the batch's order; never null
     * @throws IllegalStateException if the connection is in autocommit mode
     * @throws E what {@code work} threw; roll the transaction back
     */
    public <T, E extends Exception> List<BatchResult<T>> executeBatch(
            Connection connection, List<BatchEntry> entries, Class<T> type, BatchWork<T, E> work) throws E {
        checkType(type);
        checkCallerTransaction(connection);
        return Idempotency.of(
                        new BoundStore(sql, connection, config.retention(), null, false, true, donePayload(type)),
                        config)
                .executeBatch(entries, type, work);
    }

    /** On a processed-messages table only {@code Void} results can be recorded. */
    private void checkType(Class<?> type) {
        Objects.requireNonNull(type, "type");
        if (processedTable && donePayload(type) == null) {
            throw new IllegalArgumentException("a processed-messages table records Void results only, not "
                    + type.getName() + "; use an executor on a JdbcIdempotencyStore to store results");
        }
    }

    /**
     * Whether this executor writes a {@linkplain JdbcProcessedMessages processed-messages table}.
     *
     * @return true for an executor of {@link #of(JdbcProcessedMessages, IdempotencyConfig)}
     */
    public boolean processedMessages() {
        return processedTable;
    }

    private void checkCallerTransaction(Connection connection) {
        Objects.requireNonNull(connection, "connection");
        boolean autoCommit;
        try {
            autoCommit = connection.getAutoCommit();
        } catch (SQLException e) {
            throw sql.failure("check autocommit", null, e);
        }
        if (autoCommit) {
            throw new IllegalStateException(
                    "transactional idempotency needs a connection with autocommit off; the caller owns the transaction");
        }
        ensureStoreReady();
    }

    private <T, E extends Exception> Outcome<T> run(
            Connection connection,
            OwnTransaction own,
            IdempotencyKey key,
            Fingerprint fingerprint,
            Class<T> type,
            SqlWork<T, E> work)
            throws E {
        return Idempotency.of(
                        new BoundStore(
                                sql,
                                connection,
                                config.retention(),
                                own,
                                storesFailures,
                                claimMode == ClaimMode.CLAIM_FIRST,
                                donePayload(type)),
                        own == null ? callerConfig : config)
                .execute(key, fingerprint, type, () -> work.apply(connection));
    }

    private void ensureStoreReady() {
        if (!storeReady) {
            // Detection and schema creation on a pool connection, outside the caller's transaction
            // (DDL would commit it on MySQL); once is enough.
            prepare.run();
            storeReady = true;
        }
    }

    /**
     * Takes a connection from the store's data source and runs {@code work} in a transaction of its
     * own, which it commits, or rolls back if anything throws. One transaction per key commits the
     * work; whether concurrent duplicates may also run (and roll back) the callback depends on the
     * {@link ClaimMode} — see the class description.
     *
     * <p>The key is read first, outside any transaction: a recorded key replays after that one
     * statement, and no transaction is begun. Otherwise the transaction begins, the work runs on
     * the connection, and the finished record is inserted before the commit. On MySQL/MariaDB a
     * connection that comes in autocommit mode gets {@code START TRANSACTION} … {@code COMMIT}
     * rather than {@code setAutoCommit(false)} (two round trips fewer), so inside the work {@code
     * getAutoCommit()} still answers true there; as everywhere, the work must not commit, roll back
     * or change the autocommit mode itself.
     *
     * <p>A transaction the database rolls back as transient — a deadlock victim or, on a Galera
     * cluster, a transaction that lost certification to another node's write of the same key — runs
     * again from step 1, a bounded number of times: it then usually replays the winner's result, and
     * the work, whose first run was rolled back with everything it wrote, may run once more.
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param key the operation's key; not null
     * @param fingerprint the request's fingerprint, or {@link Fingerprint#none()}; not null
     * @param type the result type, used to decode replays; not null
     * @param work the operation, given the transaction's connection; not null
     * @return the result and whether this call ran the work or replayed it; never null
     * @throws E what {@code work} threw (the transaction was rolled back)
     */
    public <T, E extends Exception> Outcome<T> executeInTransaction(
            IdempotencyKey key, Fingerprint fingerprint, Class<T> type, SqlWork<T, E> work) throws E {
        checkType(type);
        ensureStoreReady();
        for (int attempt = 1; ; attempt++) {
            try {
                return executeInOwnTransaction(key, fingerprint, type, work);
            } catch (Exception e) {
                if (!rolledBackAsTransient(e) || attempt >= JdbcAccess.TRANSIENT_ATTEMPTS) {
                    throw e;
                }
                // A deadlock victim, or on Galera a transaction that lost certification to another
                // node's commit of the same key: nothing of it remains, so the call decides again
                // from what is committed now (on Galera usually: replay the winner's result).
                JdbcAccess.pauseBeforeRetry(attempt);
            }
        }
    }

    private static boolean rolledBackAsTransient(Exception e) {
        Throwable cause = e instanceof DupguardException ? e.getCause() : e;
        return cause instanceof SQLException sql && JdbcAccess.isTransient(sql);
    }

    private <T, E extends Exception> Outcome<T> executeInOwnTransaction(
            IdempotencyKey key, Fingerprint fingerprint, Class<T> type, SqlWork<T, E> work) throws E {
        Connection c;
        try {
            c = sql.dataSource().getConnection(); // step 1
        } catch (SQLException e) {
            throw sql.failure("begin transaction for", key, e);
        }
        try {
            OwnTransaction own;
            try {
                own = OwnTransaction.on(c, sql.dialect(c));
            } catch (SQLException e) {
                throw sql.failure("begin transaction for", key, e);
            }
            Outcome<T> outcome;
            try {
                outcome = run(c, own, key, fingerprint, type, work); // steps 2 to 5
            } catch (Throwable t) {
                rollbackQuietly(own, t);
                throw t;
            }
            try {
                own.commit(); // step 6
            } catch (SQLException e) {
                DupguardException failure = sql.failure("commit for", key, e);
                rollbackQuietly(own, failure);
                throw failure;
            }
            return outcome;
        } finally {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            // Pools restore autocommit on return; a plain connection is closed anyway.
            c.close();
        } catch (SQLException ignored) {
            // nothing left to do with a connection that cannot close
        }
    }

    private static void rollbackQuietly(OwnTransaction own, Throwable cause) {
        try {
            own.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * The steps of the class description as the {@link IdempotencyStore} the core executor drives,
     * on one connection inside one transaction: nothing is committed here except a final failure
     * (recorded outside the transaction that is rolled back). Single-threaded, like the connection.
     *
     * <p>The re-read of an existing row locks it (newest committed version even under REPEATABLE
     * READ with an earlier snapshot), except in a transaction this class just began, which has no
     * snapshot yet: there the first re-read is plain.
     */
    private static final class BoundStore implements IdempotencyStore {
        private final TransactionalSql sql;
        private final Connection connection;
        private final long retentionMillis;
        private final OwnTransaction own; // null: the caller owns the transaction
        private final boolean storesFailures;
        private final boolean claimFirst;
        private final byte[] donePayload; // non-null: claims write the row completed with it
        private Fingerprint deferredFingerprint; // set while a deferred claim is pending
        private Fingerprint claimedFingerprint; // the fingerprint of the current claim
        private Savepoint beforeClaim; // caller's transaction with a storing failure policy: undo point

        /**
         * @param own the transaction this library owns on {@code connection}, begun when needed; null
         *     when the caller's transaction is already open and must not be ended here
         * @param storesFailures whether the failure policy may store a final failure: then such a
         *     failure is recorded outside the transaction that is rolled back
         * @param claimFirst in a transaction this library owns: insert the claim row before the work
         *     (concurrent duplicates wait on its row lock) instead of the deferred claim
         * @param donePayload the record of a result known before the work (a {@code Void} call's null),
         *     or null: claims write the row completed with it, and the completion that records it
         *     writes nothing
         */
        BoundStore(
                TransactionalSql sql,
                Connection connection,
                Duration retention,
                OwnTransaction own,
                boolean storesFailures,
                boolean claimFirst,
                byte[] donePayload) {
            this.sql = sql;
            this.donePayload = donePayload;
            this.connection = connection;
            this.retentionMillis = Checks.millis(retention);
            this.own = own;
            this.storesFailures = storesFailures;
            this.claimFirst = claimFirst;
        }

        @FunctionalInterface
        private interface Op<R> {
            R run() throws SQLException;
        }

        private <R> R run(String operation, IdempotencyKey key, Op<R> op) {
            try {
                return op.run();
            } catch (SQLException e) {
                throw sql.failure(operation, key, e);
            }
        }

        @Override
        public Claim claim(IdempotencyKey key, Fingerprint fingerprint, String owner, Duration lease) {
            Checks.positive(lease, "lease");
            deferredFingerprint = null;
            claimedFingerprint = fingerprint;
            if (own != null) {
                return run("claim", key, () -> {
                    // Own transaction, step 2: a plain read in autocommit.
                    TransactionalSql.Found found = sql.read(connection, key, fingerprint);
                    if (found != null && found.live()) {
                        return new Claim.Existing(found.record());
                    }
                    own.begin();
                    if (found != null || claimFirst) {
                        // Step 3 (or the takeover of an expired row). A transaction just begun has
                        // no snapshot yet: the first re-read may be plain.
                        return sql.claim(
                                connection, false, key, fingerprint, owner, retentionMillis, false, donePayload);
                    }
                    deferredFingerprint = fingerprint; // step 3, optimistic: nothing written yet
                    return Claim.FRESH;
                });
            }
            return run("claim", key, () -> {
                if (storesFailures) {
                    // Caller's transaction, step 1. The claim row and the work must be undone, inside
                    // the caller's transaction, before a final failure can be recorded outside it
                    // (the claim row's lock would block that).
                    beforeClaim = connection.setSavepoint();
                }
                // Step 2.
                return sql.claim(
                        connection, true, key, fingerprint, owner, retentionMillis, storesFailures, donePayload);
            });
        }

        @Override
        public void complete(
                IdempotencyKey key, String owner, RecordStatus status, byte[] payload, Duration retention) {
            long millis = Checks.millis(Checks.positive(retention, "retention"));
            if (status == RecordStatus.FAILED) {
                recordFinalFailureOutside(key, payload, millis);
                return;
            }
            // Step 5.
            Fingerprint deferred = deferredFingerprint;
            if (deferred != null) {
                deferredFingerprint = null;
                boolean recorded =
                        completing(key, () -> sql.insertFinished(connection, key, deferred, status, payload, millis));
                if (!recorded) {
                    rollBackAfterLosing(key);
                }
                return;
            }
            if (recordedByClaim(status, payload, millis)) {
                return; // the claim wrote the row completed, in this transaction
            }
            completing(key, () -> {
                sql.complete(connection, key, owner, status, payload, millis, millis == retentionMillis);
                return true;
            });
        }

        /** Whether the claim already wrote this completion: the row completed with this payload and expiry. */
        private boolean recordedByClaim(RecordStatus status, byte[] payload, long millis) {
            return donePayload != null
                    && status == RecordStatus.COMPLETED
                    && millis == retentionMillis
                    && Arrays.equals(payload, donePayload);
        }

        /**
         * Runs the completion. In a transaction of its own, a transient rollback there — on Galera,
         * losing certification to another node that wrote the key first — is a lost claim: the
         * executor claims again and replays the winner.
         */
        private boolean completing(IdempotencyKey key, Op<Boolean> op) {
            try {
                return op.run();
            } catch (SQLException e) {
                if (own != null && JdbcAccess.isTransient(e)) {
                    rollBackAfterLosing(key);
                }
                throw sql.failure("complete", key, e);
            }
        }

        private void rollBackAfterLosing(IdempotencyKey key) {
            run("roll back after losing", key, () -> {
                own.rollback();
                return null;
            });
            throw new ClaimLostException(key);
        }

        /**
         * A final failure ({@link io.dupguard.idempotency.FailurePolicy}) must outlive the rollback
         * that follows it, or a retry runs the work again: the work (and the claim) is undone first —
         * the whole transaction this library owns, or the caller's transaction back to the savepoint
         * taken before the claim — and the failure is then recorded in a transaction of its own: on the
         * same connection when this library owns it, else on a connection of the store's pool. If
         * another call recorded the key meanwhile, its result is the key's outcome ({@link
         * ClaimLostException}).
         */
        private void recordFinalFailureOutside(IdempotencyKey key, byte[] payload, long millis) {
            Fingerprint fp = claimedFingerprint;
            deferredFingerprint = null;
            boolean recorded;
            if (own != null) {
                recorded = run("record final failure of", key, () -> {
                    own.rollback();
                    own.begin();
                    boolean ok = sql.recordFinished(connection, key, fp, RecordStatus.FAILED, payload, millis);
                    if (ok) {
                        own.commit();
                    } else {
                        own.rollback();
                    }
                    return ok;
                });
            } else {
                Savepoint savepoint = beforeClaim;
                beforeClaim = null;
                if (savepoint == null) {
                    throw new IllegalStateException("no savepoint for a final failure of " + key);
                }
                run("roll back to the claim of", key, () -> {
                    connection.rollback(savepoint);
                    return null;
                });
                recorded = sql.recordFinishedOnPool(key, fp, RecordStatus.FAILED, payload, millis);
            }
            if (!recorded) {
                throw new ClaimLostException(key);
            }
        }

        @Override
        public void release(IdempotencyKey key, String owner) {
            if (deferredFingerprint != null) {
                // Nothing of ours was written, but the work may have failed because a concurrent call
                // on the same key got there first (say, a unique order number): then that call's result
                // is this key's outcome. Undo the work and look.
                deferredFingerprint = null;
                boolean recordedElsewhere = run("release", key, () -> {
                    own.rollback();
                    return sql.find(connection, key).isPresent();
                });
                if (recordedElsewhere) {
                    throw new ClaimLostException(key);
                }
                return;
            }
            run("release", key, () -> {
                if (own != null) {
                    own.rollback(); // removes the claim row with the work's writes
                } else {
                    sql.release(connection, key, owner);
                }
                return null;
            });
        }

        @Override
        public boolean renew(IdempotencyKey key, String owner, Duration lease) {
            if (donePayload != null) {
                return true; // the claim wrote the row completed: no lease to hold
            }
            long millis = Checks.millis(Checks.positive(lease, "lease"));
            return run("renew", key, () -> sql.renew(connection, key, owner, millis));
        }

        @Override
        public Optional<IdempotencyRecord> find(IdempotencyKey key) {
            return run("find", key, () -> sql.find(connection, key));
        }

        // The batch methods serve executeBatch(connection, …) only: the caller's transaction, no
        // savepoints (a final failure is recorded in that transaction, with the other entries).

        @Override
        public List<Claim> claimAll(List<BatchEntry> entries, String owner, Duration lease) {
            return run(
                    "claim batch", null, () -> sql.claimAll(connection, entries, owner, retentionMillis, donePayload));
        }

        @Override
        public Set<IdempotencyKey> completeAll(List<BatchCompletion> completions, String owner, Duration retention) {
            long millis = Checks.millis(Checks.positive(retention, "retention"));
            List<BatchCompletion> left = completions;
            if (donePayload != null) {
                // The claim wrote these rows completed: only a different record (a final failure)
                // is written now.
                left = completions.stream()
                        .filter(x -> !recordedByClaim(x.status(), x.payload(), millis))
                        .toList();
            }
            List<BatchCompletion> write = left;
            return write.isEmpty()
                    ? Set.of()
                    : run("complete batch", null, () -> sql.completeAll(connection, write, owner, millis));
        }

        @Override
        public void releaseAll(List<IdempotencyKey> keys, String owner) {
            run("release batch", null, () -> {
                sql.releaseAll(connection, keys, owner);
                return null;
            });
        }
    }

    /**
     * The transaction {@link JdbcTransactionalIdempotency#executeInTransaction} owns, begun only when
     * something is about to be written: a duplicate is answered by one autocommit read and never opens
     * a transaction at all.
     *
     * <p>How it begins depends on the connection:
     *
     * <ul>
     *   <li>Already in manual-commit mode (a pool configured with autocommit off): it is in a
     *       transaction from the first statement; {@link #begin} does nothing and {@link Connection#commit}
     *       / {@link Connection#rollback} end it.
     *   <li>MySQL/MariaDB in autocommit: {@code START TRANSACTION}, ended by {@code COMMIT} or {@code
     *       ROLLBACK} statements. Switching the session with {@code setAutoCommit(false)} costs a round
     *       trip there, and the pool's reset to autocommit on return another one: two of the five round
     *       trips of a fresh call. The session's autocommit flag is never changed, so the work sees
     *       {@code getAutoCommit() == true} while the transaction is open.
     *   <li>Any other database in autocommit: {@code setAutoCommit(false)}, which PostgreSQL's and H2's
     *       drivers apply without a round trip (PostgreSQL sends {@code BEGIN} with the next
     *       statement); {@code commit()} / {@code rollback()}; the pool restores autocommit on return.
     * </ul>
     *
     * <p>Single-threaded, like the connection.
     */
    private static final class OwnTransaction {
        private enum Mode {
            ALREADY_MANUAL,
            EXPLICIT_STATEMENTS,
            SWITCH_AUTOCOMMIT
        }

        private final Connection connection;
        private final Mode mode;
        private boolean open;

        private OwnTransaction(Connection connection, Mode mode) {
            this.connection = connection;
            this.mode = mode;
            this.open = mode == Mode.ALREADY_MANUAL;
        }

        static OwnTransaction on(Connection connection, SqlDialect dialect) throws SQLException {
            Mode mode;
            if (!connection.getAutoCommit()) {
                mode = Mode.ALREADY_MANUAL;
            } else if (dialect == SqlDialect.MYSQL) {
                mode = Mode.EXPLICIT_STATEMENTS;
            } else {
                mode = Mode.SWITCH_AUTOCOMMIT;
            }
            return new OwnTransaction(connection, mode);
        }

        /** Begins the transaction unless one is open. */
        void begin() throws SQLException {
            if (open) {
                return;
            }
            if (mode == Mode.EXPLICIT_STATEMENTS) {
                execute("START TRANSACTION");
            } else {
                connection.setAutoCommit(false);
            }
            open = true;
        }

        /** Commits what was begun; nothing if nothing was. */
        void commit() throws SQLException {
            if (!open) {
                return;
            }
            if (mode == Mode.EXPLICIT_STATEMENTS) {
                execute("COMMIT");
                open = false;
            } else {
                connection.commit();
            }
        }

        /** Rolls back what was begun; nothing if nothing was. A later {@link #begin} starts afresh. */
        void rollback() throws SQLException {
            if (!open) {
                return;
            }
            if (mode == Mode.EXPLICIT_STATEMENTS) {
                open = false; // if ROLLBACK fails the connection is broken and the pool discards it
                execute("ROLLBACK");
            } else {
                connection.rollback();
            }
        }

        private void execute(String sql) throws SQLException {
            try (Statement st = connection.createStatement()) {
                st.execute(sql);
            }
        }
    }
}

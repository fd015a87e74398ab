package io.dupguard.jdbc;

import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.FailurePolicy;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

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
 * <p><b>What runs when.</b> The <em>committed</em> effect is single per key in every mode below:
 * exactly one transaction that ran the work commits with the key's record. Whether the
 * <em>callback</em> itself can run more than once under concurrent duplicates depends on the claim:
 *
 * <ul>
 *   <li>{@link #executeInTransaction} with {@link ClaimMode#OPTIMISTIC} (the default of {@link
 *       #of(JdbcIdempotencyStore)}): a plain read of the key before any transaction begins; a
 *       recorded key replays at once (one statement, no transaction); an unrecorded one runs the
 *       work and records the finished row with one insert-if-absent before the commit — the
 *       statements of a bare "seen it?" check plus insert, as Camel's {@code
 *       JdbcMessageIdRepository} sends, while also storing the result. <b>Concurrent calls on one
 *       key that all find it unrecorded all run the callback</b> (16 threads on one key with 20 ms
 *       of work: up to 16 runs): each later insert waits for the first transaction, and once that
 *       commits the later transactions are rolled back (their work undone) and those calls replay
 *       the first one's result — {@link io.dupguard.idempotency.Outcome#isReplay()} is then true
 *       although this call's callback ran (and was undone). A duplicate whose work fails because of
 *       the winner's rows (a unique order number, say) replays too. Use this mode only when the work
 *       touches nothing but this transaction and is cheap to run and undo.
 *   <li>{@link #executeInTransaction} with {@link ClaimMode#CLAIM_FIRST}: the same first read; an
 *       unrecorded key is then claimed by inserting its row inside the new transaction <em>before</em>
 *       the work, and completed by an update that changes no indexed column. A concurrent duplicate's
 *       insert waits on that row's lock until the first transaction ends, then replays its result
 *       (or, after a rollback, claims and runs): <b>the callback runs once per key</b>, at the price
 *       of one more statement per first call. Use it for work that is expensive, or that calls
 *       anything outside the transaction (a payment provider, a message broker).
 *   <li>{@link #execute(Connection, IdempotencyKey, Fingerprint, Class, SqlWork)} runs in the
 *       caller's transaction, which it must not roll back, so it always claims first as above (the
 *       row stays invisible until commit, so its expiry is the retention: a lease would protect
 *       nothing): the callback runs once per key.
 * </ul>
 *
 * <p>While a claim-first duplicate waits, it holds a pooled connection; the wait is bounded by the
 * database's lock-wait timeout ({@code innodb_lock_wait_timeout}, 50 s by default on MariaDB;
 * {@code lock_timeout} on PostgreSQL, unbounded by default), not by the {@link
 * io.dupguard.idempotency.InFlightPolicy}: a claim that is not committed is invisible, so no
 * duplicate can see it as "in flight".
 *
 * <p>No in-progress row is ever visible to others, so the {@link
 * io.dupguard.idempotency.InFlightPolicy} comes into play only when the same table is also used in
 * autocommit mode. The work must not commit or roll back the connection itself.
 *
 * <p><b>Failures.</b> A failure the {@link FailurePolicy} does not call final leaves nothing: the
 * rollback that follows removes the claim with the work. A <em>final</em> failure ({@link
 * FailurePolicy#storeFinal}) is recorded <em>outside</em> the transaction that is rolled back, so a
 * retry replays it ({@link io.dupguard.idempotency.ReplayedFailureException}) instead of running the
 * work again: {@link #executeInTransaction} rolls its transaction back and records the failure in a
 * short transaction of its own on the same connection; {@link #execute(Connection, IdempotencyKey,
 * Fingerprint, Class, SqlWork) execute(connection, …)} sets a savepoint before the claim (one extra
 * statement per call, only under a storing policy), rolls the caller's transaction back to it on a
 * final failure and records the failure on a connection of the store's pool, committed at once —
 * the caller then rolls back as usual. On MySQL/MariaDB that mode also deletes an expired row of the
 * key in autocommit before claiming (one more statement), because InnoDB keeps row locks taken after
 * a savepoint until the transaction ends. If another call recorded the key meanwhile, its result is
 * replayed instead.
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

    private final JdbcIdempotencyStore store;
    private final IdempotencyConfig config;
    private final boolean storesFailures;
    private final ClaimMode claimMode;
    private volatile boolean storeReady;

    private JdbcTransactionalIdempotency(JdbcIdempotencyStore store, IdempotencyConfig config, ClaimMode claimMode) {
        this.store = Objects.requireNonNull(store, "store");
        this.claimMode = Objects.requireNonNull(claimMode, "claimMode");
        // A connection cannot be shared with a renewal thread, and an uncommitted result must not
        // be served from a local cache, so both are off whatever the base config says.
        this.config = IdempotencyConfig.from(config)
                .renewLease(false)
                .localCacheSize(0)
                .build();
        this.storesFailures = this.config.failurePolicy() != FailurePolicy.releaseOnFailure();
    }

    /** Default config, {@link ClaimMode#OPTIMISTIC}. */
    public static JdbcTransactionalIdempotency of(JdbcIdempotencyStore store) {
        return new JdbcTransactionalIdempotency(store, IdempotencyConfig.ofDefaults(), ClaimMode.OPTIMISTIC);
    }

    /** Uses {@code config}'s retention, failure policy, codec and listener; {@link ClaimMode#OPTIMISTIC}. */
    public static JdbcTransactionalIdempotency of(JdbcIdempotencyStore store, IdempotencyConfig config) {
        return new JdbcTransactionalIdempotency(store, config, ClaimMode.OPTIMISTIC);
    }

    /**
     * Uses {@code config}'s retention, failure policy, codec and listener, and {@code claimMode} in
     * {@link #executeInTransaction}.
     *
     * @throws NullPointerException if an argument is null
     */
    public static JdbcTransactionalIdempotency of(
            JdbcIdempotencyStore store, IdempotencyConfig config, ClaimMode claimMode) {
        return new JdbcTransactionalIdempotency(store, config, claimMode);
    }

    /** The claim mode of {@link #executeInTransaction}. */
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
     * @throws IllegalStateException if the connection is in autocommit mode
     */
    public <T, E extends Exception> Outcome<T> execute(
            Connection connection, IdempotencyKey key, Fingerprint fingerprint, Class<T> type, SqlWork<T, E> work)
            throws E {
        Objects.requireNonNull(connection, "connection");
        boolean autoCommit;
        try {
            autoCommit = connection.getAutoCommit();
        } catch (SQLException e) {
            throw store.unavailable("check autocommit", e);
        }
        if (autoCommit) {
            throw new IllegalStateException(
                    "transactional idempotency needs a connection with autocommit off; the caller owns the transaction");
        }
        ensureStoreReady();
        return run(connection, null, key, fingerprint, type, work);
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
                        new ConnectionBoundStore(
                                store,
                                connection,
                                config.retention(),
                                own,
                                storesFailures,
                                claimMode == ClaimMode.CLAIM_FIRST),
                        config)
                .execute(key, fingerprint, type, () -> work.apply(connection));
    }

    private void ensureStoreReady() {
        if (!storeReady) {
            // Detection and schema creation on a pool connection, outside the caller's transaction
            // (DDL would commit it on MySQL); once is enough.
            store.dialect();
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
     */
    public <T, E extends Exception> Outcome<T> executeInTransaction(
            IdempotencyKey key, Fingerprint fingerprint, Class<T> type, SqlWork<T, E> work) throws E {
        ensureStoreReady();
        Connection c;
        try {
            c = store.dataSource().getConnection();
        } catch (SQLException e) {
            throw store.unavailable("begin transaction for", key, e);
        }
        try {
            OwnTransaction own;
            try {
                own = OwnTransaction.on(c, store.sql(c).dialect);
            } catch (SQLException e) {
                throw store.unavailable("begin transaction for", key, e);
            }
            Outcome<T> outcome;
            try {
                outcome = run(c, own, key, fingerprint, type, work);
            } catch (Throwable t) {
                rollbackQuietly(own, t);
                throw t;
            }
            try {
                own.commit();
            } catch (SQLException e) {
                StoreUnavailableException failure = store.unavailable("commit for", key, e);
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
}

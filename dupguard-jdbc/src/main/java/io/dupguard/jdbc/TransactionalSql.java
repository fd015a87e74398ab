package io.dupguard.jdbc;

import io.dupguard.DupguardException;
import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.RecordStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The SQL {@link JdbcIdempotencyStore} lends to {@link JdbcTransactionalIdempotency}: the store's
 * own statements on its own table and dialect, run on a connection the caller passes and inside
 * whatever transaction is open there. None of them begins, commits or rolls back a transaction,
 * except {@link #recordFinishedOnPool}, which is the one that runs on a connection of the store's
 * own pool. The transactional algorithm — when to begin, what to write before and after the work,
 * how a failure is undone — lives in {@link JdbcTransactionalIdempotency}; the row format, the
 * dialects' statements and the key encoding stay in the store.
 *
 * <p>Times are database time: every expiry is "now + millis" on the server. Implementations are
 * thread-safe; each call uses only the connection it is given.
 */
interface TransactionalSql {
    /** A row read for a key: its record, and whether it is live (not expired) by the database clock. */
    record Found(IdempotencyRecord record, boolean live) {}

    /** The pool of the store; {@link JdbcTransactionalIdempotency#executeInTransaction} borrows from it. */
    DataSource dataSource();

    /**
     * The dialect of the store's database, detected (and the table created, if so configured) on
     * first use on {@code c}; a call before any transaction begins keeps DDL out of the caller's.
     */
    SqlDialect dialect(Connection c) throws SQLException;

    /**
     * The store's exception for a failed operation, naming the store, the operation and {@code
     * subject}: {@link io.dupguard.ReadOnlyStoreException} for a write refused as read-only, else
     * {@link io.dupguard.StoreUnavailableException}.
     */
    DupguardException failure(String operation, Object subject, SQLException e);

    /**
     * A plain (non-locking) read of the key's row, live or expired; null if there is none. {@code
     * fingerprint} is the request's: a table that keeps a compact fingerprint answers with it when
     * the stored one matches.
     */
    Found read(Connection c, IdempotencyKey key, Fingerprint fingerprint) throws SQLException;

    /**
     * Claims the key with the store's claim steps, the row's expiry and purge time set to the
     * retention at once (an uncommitted row is invisible to others, so a lease would protect
     * nothing).
     *
     * @param lockingRead whether the re-read of an existing row locks it, so that it sees the newest
     *     committed version in a transaction that already holds a snapshot; otherwise only the
     *     later rounds lock
     * @param undoable the claim will be undone by rolling back to a savepoint taken just before it:
     *     it must then leave no lock on an existing row behind (on MySQL/MariaDB an expired row of
     *     the key is first deleted in autocommit on a pool connection)
     * @param donePayload null: the row is written in progress; else it is written completed with
     *     this payload (and still carries {@code owner}), so that no completion needs to follow
     */
    Claim claim(
            Connection c,
            boolean lockingRead,
            IdempotencyKey key,
            Fingerprint fingerprint,
            String owner,
            long retentionMillis,
            boolean undoable,
            byte[] donePayload)
            throws SQLException;

    /**
     * Inserts a finished row unless the key has one. False: another transaction recorded the key
     * first (an insert that met its uncommitted row waited for that transaction to end).
     */
    boolean insertFinished(
            Connection c,
            IdempotencyKey key,
            Fingerprint fingerprint,
            RecordStatus status,
            byte[] payload,
            long retentionMillis)
            throws SQLException;

    /**
     * Records a finished row for a key nobody holds: inserts it, or replaces an expired row. False
     * if a live row of another call is there.
     */
    boolean recordFinished(
            Connection c,
            IdempotencyKey key,
            Fingerprint fingerprint,
            RecordStatus status,
            byte[] payload,
            long retentionMillis)
            throws SQLException;

    /**
     * {@link #recordFinished} in a short transaction of its own on a connection of the store's
     * pool, committed before this returns.
     *
     * @throws StoreUnavailableException if the database fails
     */
    boolean recordFinishedOnPool(
            IdempotencyKey key, Fingerprint fingerprint, RecordStatus status, byte[] payload, long retentionMillis);

    /**
     * Completes {@code owner}'s claim (its row in progress, or completed by a claim with a done
     * payload). With {@code keepExpiry} the row keeps the expiry its claim
     * set and the update changes no indexed column; otherwise the expiry becomes now + {@code
     * retentionMillis}.
     *
     * @throws io.dupguard.LeaseLostException if {@code owner} no longer holds the claim
     */
    void complete(
            Connection c,
            IdempotencyKey key,
            String owner,
            RecordStatus status,
            byte[] payload,
            long retentionMillis,
            boolean keepExpiry)
            throws SQLException;

    /** Deletes {@code owner}'s row of the key (in progress, or completed by its claim), if it is still there. */
    void release(Connection c, IdempotencyKey key, String owner) throws SQLException;

    /** Moves the expiry of {@code owner}'s live in-progress row to now + {@code leaseMillis}. */
    boolean renew(Connection c, IdempotencyKey key, String owner, long leaseMillis) throws SQLException;

    /** The key's live record, if any. */
    Optional<IdempotencyRecord> find(Connection c, IdempotencyKey key) throws SQLException;

    /**
     * Claims a batch of distinct keys on {@code c} with the store's batch statement, the rows'
     * expiry and purge time set to the retention; keys the statement leaves open go through {@link
     * #claim} with a locking re-read. {@code donePayload} as in {@link #claim}.
     */
    List<Claim> claimAll(Connection c, List<BatchEntry> entries, String owner, long retentionMillis, byte[] donePayload)
            throws SQLException;

    /** Completes a batch on {@code c}; returns the keys not held by {@code owner}. */
    Set<IdempotencyKey> completeAll(Connection c, List<BatchCompletion> completions, String owner, long retentionMillis)
            throws SQLException;

    /** Deletes the owner's rows of {@code keys} on {@code c}. */
    void releaseAll(Connection c, List<IdempotencyKey> keys, String owner) throws SQLException;
}

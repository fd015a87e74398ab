package io.dupguard.jdbc;

import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.ClaimLostException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.internal.Checks;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.Optional;

/**
 * The store's statements on one caller-owned connection inside the caller's transaction: nothing is
 * committed here. Single-threaded, like the connection.
 *
 * <p>Writes less than the autocommit store, because the claim row stays invisible to everyone else
 * until the transaction commits, and by then it is complete (or, after a failure, released):
 *
 * <ul>
 *   <li><b>Deferred claim</b> (only in a transaction this library owns and may roll back, {@link
 *       OwnTransaction}): the claim is a plain read, before any transaction is begun, so a
 *       duplicate is answered by that one read. With no row, the transaction begins, the work runs
 *       and its result is recorded by one insert-if-absent of the finished row — the same
 *       statements as a bare "seen it?" check plus insert. An insert that meets a concurrent call's
 *       row waits for that transaction; if it committed, this transaction is rolled back (undoing
 *       the work) and {@link ClaimLostException} makes the executor claim again, which replays the
 *       other call's result.
 *   <li>The claim row gets the <em>retention</em> as its expiry at once; a lease would protect
 *       nothing that the transaction's own row lock does not. The completion then changes no
 *       indexed column (on PostgreSQL a HOT update; on InnoDB no secondary-index write).
 *   <li>The re-read of an existing row locks it (newest committed version even under REPEATABLE
 *       READ with an earlier snapshot), except in a transaction this library just began, which has
 *       no snapshot yet: there the first re-read is plain.
 * </ul>
 */
final class ConnectionBoundStore implements IdempotencyStore {
    private final JdbcIdempotencyStore store;
    private final Connection connection;
    private final long retentionMillis;
    private final OwnTransaction own; // null: the caller owns the transaction
    private final boolean storesFailures;
    private final boolean claimFirst;
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
     */
    ConnectionBoundStore(
            JdbcIdempotencyStore store,
            Connection connection,
            Duration retention,
            OwnTransaction own,
            boolean storesFailures,
            boolean claimFirst) {
        this.store = store;
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
            throw store.unavailable(operation, key, e);
        }
    }

    @Override
    public Claim claim(IdempotencyKey key, Fingerprint fingerprint, String owner, Duration lease) {
        Checks.positive(lease, "lease");
        deferredFingerprint = null;
        claimedFingerprint = fingerprint;
        if (own != null) {
            return run("claim", key, () -> {
                Claim claim =
                        store.readForDeferredClaim(connection, key, fingerprint, owner, retentionMillis, own::begin);
                if (claim != null) {
                    return claim;
                }
                own.begin();
                if (claimFirst) {
                    // A transaction just begun has no snapshot yet: the first re-read may be plain.
                    return store.claimForTransaction(
                            connection, false, key, fingerprint, owner, retentionMillis, false);
                }
                deferredFingerprint = fingerprint;
                return Claim.FRESH;
            });
        }
        return run("claim", key, () -> {
            if (storesFailures) {
                // The claim row and the work must be undone, inside the caller's transaction, before
                // a final failure can be recorded outside it (the claim row's lock would block that).
                beforeClaim = connection.setSavepoint();
            }
            return store.claimForTransaction(
                    connection, true, key, fingerprint, owner, retentionMillis, storesFailures);
        });
    }

    @Override
    public void complete(IdempotencyKey key, String owner, RecordStatus status, byte[] payload, Duration retention) {
        long millis = Checks.millis(Checks.positive(retention, "retention"));
        if (status == RecordStatus.FAILED) {
            recordFinalFailureOutside(key, payload, millis);
            return;
        }
        Fingerprint deferred = deferredFingerprint;
        if (deferred != null) {
            deferredFingerprint = null;
            boolean recorded = run(
                    "complete", key, () -> store.insertFinished(connection, key, deferred, status, payload, millis));
            if (!recorded) {
                run("roll back after losing", key, () -> {
                    own.rollback();
                    return null;
                });
                throw new ClaimLostException(key);
            }
            return;
        }
        run("complete", key, () -> {
            store.complete(connection, key, owner, status, payload, millis, millis == retentionMillis);
            return null;
        });
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
                boolean ok = store.recordFinished(connection, key, fp, RecordStatus.FAILED, payload, millis);
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
            recorded = store.recordFinishedOnPool(key, fp, RecordStatus.FAILED, payload, millis);
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
                return store.find(connection, key).isPresent();
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
                store.release(connection, key, owner);
            }
            return null;
        });
    }

    @Override
    public boolean renew(IdempotencyKey key, String owner, Duration lease) {
        long millis = Checks.millis(Checks.positive(lease, "lease"));
        return run("renew", key, () -> store.renew(connection, key, owner, millis));
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        return run("find", key, () -> store.find(connection, key));
    }
}

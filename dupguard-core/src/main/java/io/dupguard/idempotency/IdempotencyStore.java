package io.dupguard.idempotency;

import io.dupguard.LeaseLostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * Where idempotency records live. A backend implements this; applications use {@link Idempotency}.
 *
 * <p>Contract, which every implementation proves by running {@code
 * AbstractIdempotencyStoreContractTest} from {@code dupguard-test-support} against a real server:
 *
 * <ul>
 *   <li>{@link #claim} is atomic: of any number of concurrent callers on one key, at most one gets
 *       {@link Claim.Claimed} while a live record exists.
 *   <li>Expiry (lease of an in-progress claim, retention of a finished record) is decided by the
 *       store's own clock where it has one.
 *   <li>Writes by an owner ({@link #complete}, {@link #release}, {@link #renew}) check ownership in
 *       the same atomic step as the write.
 *   <li>Any failure to reach or use the store throws {@link io.dupguard.StoreUnavailableException};
 *       no method ever answers "absent" because the store could not be asked.
 * </ul>
 *
 * <p>The batch methods ({@link #claimAll}, {@link #completeAll}, {@link #releaseAll}) default to a
 * loop over the single-key ones, so every store supports them; a store overrides them to answer a
 * whole batch in one round trip. Each key of a batch has exactly the semantics of the single-key
 * method; a batch need not be atomic as a whole.
 *
 * <p>Implementations are thread-safe.
 */
public interface IdempotencyStore {

    /**
     * Claims the key for {@code owner} if no live record exists (or the existing one expired),
     * recording {@code fingerprint} and an in-progress lease of {@code lease}; otherwise returns the
     * live record.
     *
     * @param key the key; not null
     * @param fingerprint the request's fingerprint, recorded with the claim; not null
     * @param owner the claiming call's unique owner id; not null
     * @param lease the in-progress lease, counted from now; positive
     * @return either the new claim or the live record that prevented it; never null
     */
    Claim claim(IdempotencyKey key, Fingerprint fingerprint, String owner, Duration lease);

    /**
     * Turns the owner's in-progress record into {@code status} ({@link RecordStatus#COMPLETED} or
     * {@link RecordStatus#FAILED}) with {@code payload}, retained for {@code retention}.
     *
     * @param key the key; not null
     * @param owner the owner id the key was claimed with; not null
     * @param status {@link RecordStatus#COMPLETED} or {@link RecordStatus#FAILED}
     * @param payload the encoded result or failure; not null
     * @param retention how long the record is kept, counted from now; positive
     * @throws LeaseLostException if the record is no longer in progress under {@code owner}
     * @throws ClaimLostException only from a store that defers the claim to completion: another
     *     call recorded the key first, and the store undid this call's work
     */
    void complete(IdempotencyKey key, String owner, RecordStatus status, byte[] payload, Duration retention);

    /**
     * Like {@link #complete(IdempotencyKey, String, RecordStatus, byte[], Duration)}, with the
     * fingerprint the owner claimed with. {@link Idempotency} calls this one.
     *
     * <p>A completion whose lease ran out but which nobody took over must be <b>recorded</b>: the
     * owner's work ran, and refusing its result would make a retry run it again. Only a real
     * takeover (the key is in progress or finished under another owner) refuses it. A store that
     * keeps expired claims until they are taken over (the SQL stores, the in-memory store) gets
     * this from the owner check alone and need not override; a store whose expired claims vanish
     * (Redis) re-creates the record from {@code fingerprint} when the key is absent.
     *
     * @param key the key; not null
     * @param fingerprint the fingerprint the key was claimed with; not null
     * @param owner the owner id the key was claimed with; not null
     * @param status {@link RecordStatus#COMPLETED} or {@link RecordStatus#FAILED}
     * @param payload the encoded result or failure; not null
     * @param retention how long the record is kept, counted from now; positive
     * @throws LeaseLostException if another owner took the key over
     */
    default void complete(
            IdempotencyKey key,
            Fingerprint fingerprint,
            String owner,
            RecordStatus status,
            byte[] payload,
            Duration retention) {
        complete(key, owner, status, payload, retention);
    }

    /**
     * {@link #complete(IdempotencyKey, Fingerprint, String, RecordStatus, byte[], Duration)} sent
     * without waiting for the store's answer, for {@link IdempotencyConfig.Builder#awaitCompletion
     * awaitCompletion(false)}: a command the caller sends next on the same connection (the next
     * claim) travels behind it, so the two answers come back in one round trip. The stage completes
     * when the store has answered: normally once the record is stored, exceptionally with what
     * {@code complete} would have thrown ({@link LeaseLostException}, {@link
     * io.dupguard.StoreUnavailableException}).
     *
     * <p>The default runs {@code complete} and returns a completed stage: correct for every store,
     * with no round trip saved. Stores that pipeline commands override it (Redis).
     *
     * @param key the key; not null
     * @param fingerprint the fingerprint the key was claimed with; not null
     * @param owner the owner id the key was claimed with; not null
     * @param status {@link RecordStatus#COMPLETED} or {@link RecordStatus#FAILED}
     * @param payload the encoded result or failure; not null
     * @param retention how long the record is kept, counted from now; positive
     * @return the store's answer, to come; never null
     */
    default CompletionStage<Void> completeAsync(
            IdempotencyKey key,
            Fingerprint fingerprint,
            String owner,
            RecordStatus status,
            byte[] payload,
            Duration retention) {
        try {
            complete(key, fingerprint, owner, status, payload, retention);
            return AnsweredCompletion.of(null);
        } catch (RuntimeException e) {
            return AnsweredCompletion.of(e);
        }
    }

    /**
     * Deletes the owner's in-progress record so that a retry may run the work again. Does nothing if
     * the record is no longer the owner's.
     *
     * @param key the key; not null
     * @param owner the owner id the key was claimed with; not null
     * @throws ClaimLostException only from a store that defers the claim to completion: the work
     *     failed while another call recorded the key, and the store undid this call's work
     */
    void release(IdempotencyKey key, String owner);

    /**
     * Extends the owner's in-progress lease to {@code lease} from now.
     *
     * @param key the key; not null
     * @param owner the owner id the key was claimed with; not null
     * @param lease the new lease, counted from now; positive
     * @return false if the record is no longer in progress under {@code owner}
     */
    boolean renew(IdempotencyKey key, String owner, Duration lease);

    /**
     * The live record for the key, if any.
     *
     * @param key the key; not null
     * @return the record, or empty if there is none or it expired
     */
    Optional<IdempotencyRecord> find(IdempotencyKey key);

    /**
     * {@link #claim} for each entry, under one owner token. The keys must be distinct ({@link
     * Idempotency#claimBatch} removes duplicates first); a store overriding this answers in as few
     * round trips as it can.
     *
     * @param entries the keys and fingerprints, distinct keys; not null, not empty
     * @param owner the batch's unique owner id; not null
     * @param lease the in-progress lease, counted from now; positive
     * @return one claim per entry, in the entries' order; never null
     * @throws io.dupguard.StoreUnavailableException if the store could not be used; some keys may
     *     then be claimed, and the caller releases them
     */
    default List<Claim> claimAll(List<BatchEntry> entries, String owner, Duration lease) {
        List<Claim> claims = new ArrayList<>(entries.size());
        for (BatchEntry e : entries) {
            claims.add(claim(e.key(), e.fingerprint(), owner, lease));
        }
        return claims;
    }

    /**
     * {@link #complete(IdempotencyKey, Fingerprint, String, RecordStatus, byte[], Duration)} for each
     * item. A key no longer held by {@code owner} is not completed and is returned; the others are
     * recorded.
     *
     * @param completions what to record, distinct keys; not null
     * @param owner the owner id the keys were claimed with; not null
     * @param retention how long the records are kept, counted from now; positive
     * @return the keys another owner took over (lease lost); empty when all were recorded
     */
    default Set<IdempotencyKey> completeAll(List<BatchCompletion> completions, String owner, Duration retention) {
        Set<IdempotencyKey> lost = new LinkedHashSet<>();
        for (BatchCompletion c : completions) {
            try {
                complete(c.key(), c.fingerprint(), owner, c.status(), c.payload(), retention);
            } catch (LeaseLostException e) {
                lost.add(c.key());
            }
        }
        return lost;
    }

    /**
     * {@link #release} for each key.
     *
     * @param keys the keys; not null
     * @param owner the owner id the keys were claimed with; not null
     */
    default void releaseAll(List<IdempotencyKey> keys, String owner) {
        for (IdempotencyKey key : keys) {
            release(key, owner);
        }
    }
}

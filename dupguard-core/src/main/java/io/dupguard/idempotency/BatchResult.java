package io.dupguard.idempotency;

/**
 * What a batch claim ({@link Idempotency#claimBatch}) or a batch execution ({@link
 * Idempotency#executeBatch}) found for one entry. Contention is a normal result, not an exception.
 *
 * <p>The records are made by {@link Idempotency}; their components are never null unless said.
 *
 * @param <T> the result type
 */
public sealed interface BatchResult<T>
        permits BatchResult.Claimed,
                BatchResult.First,
                BatchResult.Replayed,
                BatchResult.ReplayedFailure,
                BatchResult.InFlight,
                BatchResult.Mismatch,
                BatchResult.DuplicateInBatch,
                BatchResult.Failed {

    /**
     * The entry this result is about.
     *
     * @return the entry; never null
     */
    BatchEntry entry();

    /**
     * The key of {@link #entry()}.
     *
     * @return the key; never null
     */
    default IdempotencyKey key() {
        return entry().key();
    }

    /**
     * The caller owns the key (from {@link Idempotency#claimBatch}): it must run the work, then
     * complete or release it through the {@link BatchClaim}.
     *
     * @param <T> the result type
     * @param entry the entry
     * @param takeover true when an expired record was taken over
     */
    record Claimed<T>(BatchEntry entry, boolean takeover) implements BatchResult<T> {}

    /**
     * The work ran in this call and its result is recorded (from {@link Idempotency#executeBatch}).
     *
     * @param <T> the result type
     * @param entry the entry
     * @param value the work's result; may be null
     */
    record First<T>(BatchEntry entry, T value) implements BatchResult<T> {}

    /**
     * A duplicate of a completed operation: the stored result, decoded by the codec.
     *
     * @param <T> the result type
     * @param entry the entry
     * @param value the stored result; may be null
     */
    record Replayed<T>(BatchEntry entry, T value) implements BatchResult<T> {}

    /**
     * A duplicate of an operation whose failure was stored as final.
     *
     * @param <T> the result type
     * @param entry the entry
     * @param failure the stored failure, as {@link Idempotency#execute} would throw it
     */
    record ReplayedFailure<T>(BatchEntry entry, ReplayedFailureException failure) implements BatchResult<T> {}

    /**
     * Another caller holds the key and its work is still running. Batches never wait: redeliver the
     * entry later.
     *
     * @param <T> the result type
     * @param entry the entry
     */
    record InFlight<T>(BatchEntry entry) implements BatchResult<T> {}

    /**
     * The key was used with a different fingerprint (guarantee K3).
     *
     * @param <T> the result type
     * @param entry the entry
     */
    record Mismatch<T>(BatchEntry entry) implements BatchResult<T> {}

    /**
     * The key occurs earlier in the same batch; only the first occurrence is claimed. The later
     * copy is neither claimed nor run, and its fingerprint is not compared.
     *
     * @param <T> the result type
     * @param entry the entry
     * @param firstIndex the position of the first occurrence in the batch
     */
    record DuplicateInBatch<T>(BatchEntry entry, int firstIndex) implements BatchResult<T> {}

    /**
     * The work reported a failure for this entry (from {@link Idempotency#executeBatch}): stored for
     * replay when the {@link FailurePolicy} calls it final, else the claim was released so a retry
     * runs again.
     *
     * @param <T> the result type
     * @param entry the entry
     * @param failure the failure
     * @param stored true if it was stored as final
     */
    record Failed<T>(BatchEntry entry, Throwable failure, boolean stored) implements BatchResult<T> {}
}

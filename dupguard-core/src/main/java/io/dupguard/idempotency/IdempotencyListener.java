package io.dupguard.idempotency;

/**
 * Hooks for metrics and logs. Called on the caller's thread (except {@link #onLeaseLost}, see
 * there); implementations must be fast and must not throw. All methods default to no-op.
 */
public interface IdempotencyListener {
    /** Shared no-op instance. */
    IdempotencyListener NONE = new IdempotencyListener() {};

    /**
     * The work ran and completed; {@code nanos} is the time from claim to completion.
     *
     * @param key the key; never null
     * @param nanos the time from claim to completion, in nanoseconds
     */
    default void onFirst(IdempotencyKey key, long nanos) {}

    /**
     * A duplicate got the stored result.
     *
     * @param key the key; never null
     */
    default void onReplay(IdempotencyKey key) {}

    /**
     * A duplicate was rejected (or its wait ran out) while the first request was running.
     *
     * @param key the key; never null
     */
    default void onInFlight(IdempotencyKey key) {}

    /**
     * A duplicate carried a different fingerprint.
     *
     * @param key the key; never null
     */
    default void onMismatch(IdempotencyKey key) {}

    /**
     * The work threw; {@code stored} tells whether the failure was stored for replay.
     *
     * @param key the key; never null
     * @param failure what the work threw; never null
     * @param stored true if the failure was stored for replay, false if the claim was released
     */
    default void onFailure(IdempotencyKey key, Throwable failure, boolean stored) {}

    /**
     * An abandoned claim was taken over after its lease ran out.
     *
     * @param key the key; never null
     */
    default void onTakeover(IdempotencyKey key) {}

    /**
     * The owner's lease was lost while the work ran: the store refused a renewal, no renewal
     * succeeded within the lease (called on a renewal thread, while the work may still run), or the
     * completion was refused after a takeover. Called at most once per call.
     *
     * @param key the key; never null
     */
    default void onLeaseLost(IdempotencyKey key) {}
}

package io.dupguard.idempotency;

/**
 * Hooks for metrics and logs. Called on the caller's thread (except {@link #onLeaseLost}, see
 * there); implementations must be fast and must not throw. All methods default to no-op.
 */
public interface IdempotencyListener {
    /** Shared no-op instance. */
    IdempotencyListener NONE = new IdempotencyListener() {};

    /** The work ran and completed; {@code nanos} is the time from claim to completion. */
    default void onFirst(IdempotencyKey key, long nanos) {}

    /** A duplicate got the stored result. */
    default void onReplay(IdempotencyKey key) {}

    /** A duplicate was rejected (or its wait ran out) while the first request was running. */
    default void onInFlight(IdempotencyKey key) {}

    /** A duplicate carried a different fingerprint. */
    default void onMismatch(IdempotencyKey key) {}

    /** The work threw; {@code stored} tells whether the failure was stored for replay. */
    default void onFailure(IdempotencyKey key, Throwable failure, boolean stored) {}

    /** An abandoned claim was taken over after its lease ran out. */
    default void onTakeover(IdempotencyKey key) {}

    /**
     * The owner's lease was lost while the work ran: the store refused a renewal, no renewal
     * succeeded within the lease (called on a renewal thread, while the work may still run), or the
     * completion was refused after a takeover. Called at most once per call.
     */
    default void onLeaseLost(IdempotencyKey key) {}
}

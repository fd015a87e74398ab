package io.dupguard.idempotency;

/**
 * Hooks for metrics and logs (the Spring Boot starter binds them to Micrometer). Called on the
 * caller's thread; implementations must be fast and must not throw. All methods default to no-op.
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

    /** The owner's lease was lost while the work ran (renewal refused or completion refused). */
    default void onLeaseLost(IdempotencyKey key) {}
}

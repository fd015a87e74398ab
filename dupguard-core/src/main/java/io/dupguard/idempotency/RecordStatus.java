package io.dupguard.idempotency;

/** The state of a stored idempotency record. */
public enum RecordStatus {
    /** Claimed by an owner whose work is still running (until its lease runs out). */
    IN_PROGRESS,
    /** The work finished; its encoded result is replayed to duplicates until retention ends. */
    COMPLETED,
    /** The work failed in a way classified as final; duplicates get the same failure. */
    FAILED
}

package io.dupguard.idempotency;

import java.util.Objects;

/**
 * One item of {@link IdempotencyStore#completeAll}: what to record for a key claimed in a batch.
 *
 * @param key the key
 * @param fingerprint the fingerprint the key was claimed with
 * @param status {@link RecordStatus#COMPLETED} or {@link RecordStatus#FAILED}
 * @param payload the encoded result or failure. Not copied: do not modify.
 */
public record BatchCompletion(IdempotencyKey key, Fingerprint fingerprint, RecordStatus status, byte[] payload) {
    /**
     * @param key the key; not null
     * @param fingerprint the fingerprint the key was claimed with; not null
     * @param status {@link RecordStatus#COMPLETED} or {@link RecordStatus#FAILED}
     * @param payload the encoded result or failure; not null
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code status} is {@link RecordStatus#IN_PROGRESS}
     */
    public BatchCompletion {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(payload, "payload");
        if (status == RecordStatus.IN_PROGRESS) {
            throw new IllegalArgumentException("status must be COMPLETED or FAILED, was " + status);
        }
    }
}

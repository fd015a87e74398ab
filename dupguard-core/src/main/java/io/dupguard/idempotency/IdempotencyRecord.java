package io.dupguard.idempotency;

import java.util.Objects;

/**
 * A record as a store returns it. Expiry is the store's business (decided by the store's clock),
 * so a record handed out is live.
 *
 * @param key the key
 * @param status the state
 * @param fingerprint the fingerprint of the request that claimed the key
 * @param owner the owner token of the claim while {@link RecordStatus#IN_PROGRESS}, else may be null
 * @param payload the encoded result ({@code COMPLETED}) or failure ({@code FAILED}); null while in
 *     progress. Not copied: do not modify.
 */
public record IdempotencyRecord(
        IdempotencyKey key, RecordStatus status, Fingerprint fingerprint, String owner, byte[] payload) {
    /**
     * @param key the key; not null
     * @param status the state; not null
     * @param fingerprint the fingerprint of the request that claimed the key; not null
     * @param owner the owner token of the claim while {@link RecordStatus#IN_PROGRESS}, else may be
     *     null
     * @param payload the encoded result ({@code COMPLETED}) or failure ({@code FAILED}); null while
     *     in progress. Not copied: do not modify
     * @throws NullPointerException if {@code key}, {@code status} or {@code fingerprint} is null
     */
    public IdempotencyRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(fingerprint, "fingerprint");
    }
}

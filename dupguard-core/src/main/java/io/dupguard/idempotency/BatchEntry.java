package io.dupguard.idempotency;

import java.util.Objects;

/**
 * One item of a batch claim: the operation's key and its request's fingerprint.
 *
 * @param key the operation's key
 * @param fingerprint the request's fingerprint, or {@link Fingerprint#none()}
 */
public record BatchEntry(IdempotencyKey key, Fingerprint fingerprint) {
    /**
     * @param key the operation's key; not null
     * @param fingerprint the request's fingerprint, or {@link Fingerprint#none()}; not null
     * @throws NullPointerException if an argument is null
     */
    public BatchEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
    }

    /**
     * An entry without a fingerprint check.
     *
     * @param key the operation's key; not null
     * @return the entry
     */
    public static BatchEntry of(IdempotencyKey key) {
        return new BatchEntry(key, Fingerprint.none());
    }
}

package io.dupguard.idempotency;

import java.util.Objects;

/**
 * What {@link IdempotencyStore#claim} found. Contention is a normal result, not an exception.
 */
public sealed interface Claim permits Claim.Claimed, Claim.Existing {

    /**
     * The caller now owns the key and must run the work, then complete or release.
     *
     * @param takeover true when an abandoned claim (expired lease) or an expired record was taken over
     */
    record Claimed(boolean takeover) implements Claim {}

    /**
     * A live record exists; the caller must not run the work.
     *
     * @param record the record
     */
    record Existing(IdempotencyRecord record) implements Claim {
        /**
         * @param record the live record; not null
         * @throws NullPointerException if {@code record} is null
         */
        public Existing {
            Objects.requireNonNull(record, "record");
        }
    }

    /** Claimed without takeover. */
    Claimed FRESH = new Claimed(false);
    /** Claimed by taking over an expired record. */
    Claimed TAKEOVER = new Claimed(true);
}

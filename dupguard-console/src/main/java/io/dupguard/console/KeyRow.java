package io.dupguard.console;

import io.dupguard.idempotency.RecordStatus;
import java.time.Instant;

/**
 * An idempotency key's row. {@code expiresAt} is the lease end while IN_PROGRESS and the end of
 * retention once finished, by the store's clock; {@code live} says whether it has not passed
 * ({@code now} is the store's clock when the row was read).
 *
 * @param scope the scope
 * @param key the key
 * @param status the status
 * @param fingerprint the request fingerprint (hex), empty if none
 * @param owner the owner token of an in-flight claim, or null
 * @param expiresAt lease end (in flight) or retention end (finished)
 * @param now the store's clock at the read
 * @param result the stored result's bytes (at most {@link RetryTasks#PAYLOAD_LIMIT}), or null
 * @param resultSize the stored result's size in bytes, or 0
 * @param processed true for a row of the processed-messages table ({@code JdbcProcessedMessages}):
 *     a listener's message committed with its effect, COMPLETED, with no owner and no result, and
 *     a fingerprint of 16 hex digits (its first 8 bytes) or none
 */
public record KeyRow(
        String scope,
        String key,
        RecordStatus status,
        String fingerprint,
        String owner,
        Instant expiresAt,
        Instant now,
        byte[] result,
        int resultSize,
        boolean processed) {
    /**
     * Whether the lease or retention has not ended.
     *
     * @return true if {@code expiresAt} is after {@code now}
     */
    public boolean live() {
        return expiresAt.isAfter(now);
    }

    /**
     * An in-flight claim whose lease ended: its owner crashed or stalled, and the next claim takes
     * it over.
     *
     * @return true if IN_PROGRESS and past its lease
     */
    public boolean stuck() {
        return status == RecordStatus.IN_PROGRESS && !live();
    }
}

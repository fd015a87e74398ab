package io.dupguard.redis;

import io.dupguard.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * The {@code replicaAcks(replicas, timeout)} option of the Redis stores: after a write that counts
 * (a claim, a lock, a renewal, a completion, an issued or consumed token, a throttle window), {@code
 * WAIT replicas timeout} on the same connection; fewer acknowledgements than asked fail the call
 * (see {@link RedisConnector#callAcked}).
 *
 * @param replicas replicas that must acknowledge, at least 1
 * @param timeoutMillis how long {@code WAIT} may block, at least 1 ms, at most {@link #MAX_TIMEOUT}
 */
record ReplicaAcks(int replicas, long timeoutMillis) {
    /**
     * Longest accepted timeout: a caller waits this long at most for its write to count, and the
     * {@code WAIT} has to finish within the client's command timeout.
     */
    static final Duration MAX_TIMEOUT = Duration.ofSeconds(30);

    static ReplicaAcks of(int replicas, Duration timeout) {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicaAcks replicas must be at least 1, was " + replicas);
        }
        Objects.requireNonNull(timeout, "replicaAcks timeout");
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException(
                    "replicaAcks timeout must be positive and at most " + MAX_TIMEOUT + ", was " + timeout);
        }
        // WAIT 0 would block forever: a positive sub-millisecond timeout waits 1 ms.
        return new ReplicaAcks(replicas, Math.max(1, Checks.millis(timeout)));
    }

    @Override
    public String toString() {
        return replicas + " replica(s) within " + timeoutMillis + " ms";
    }
}

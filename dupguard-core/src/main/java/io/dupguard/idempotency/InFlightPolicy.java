package io.dupguard.idempotency;

import io.dupguard.internal.Checks;
import java.time.Duration;

/**
 * What a duplicate does while the first request with its key is still running (guarantee K4).
 *
 * <ul>
 *   <li>{@link #reject()} (default): throw {@link RequestInFlightException} at once — right for a
 *       front-end double submit.
 *   <li>{@link #waitUpTo(Duration)}: wait for the first request to finish and return its result —
 *       right for serial flows such as account operations; throws {@link RequestInFlightException}
 *       if it is still running after {@code maxWait}.
 * </ul>
 */
public final class InFlightPolicy {
    private static final InFlightPolicy REJECT = new InFlightPolicy(Duration.ZERO);

    private final Duration maxWait;

    private InFlightPolicy(Duration maxWait) {
        this.maxWait = maxWait;
    }

    /**
     * Reject duplicates of a running request at once.
     *
     * @return the shared rejecting policy
     */
    public static InFlightPolicy reject() {
        return REJECT;
    }

    /**
     * Wait up to {@code maxWait} for the running request to finish, then replay its result.
     *
     * @param maxWait the longest wait; not null, positive
     * @return the policy
     * @throws IllegalArgumentException if {@code maxWait} is not positive or longer than {@link
     *     IdempotencyConfig#MAX_DURATION} (100 years)
     */
    public static InFlightPolicy waitUpTo(Duration maxWait) {
        return new InFlightPolicy(Checks.positive(maxWait, "maxWait"));
    }

    /**
     * Whether duplicates wait.
     *
     * @return true if duplicates wait for the first call
     */
    public boolean waits() {
        return !maxWait.isZero();
    }

    /**
     * How long duplicates wait; zero for {@link #reject()}.
     *
     * @return the longest wait, zero when duplicates are rejected at once; never null
     */
    public Duration maxWait() {
        return maxWait;
    }

    @Override
    public String toString() {
        return waits() ? "WAIT(" + maxWait + ")" : "REJECT";
    }
}

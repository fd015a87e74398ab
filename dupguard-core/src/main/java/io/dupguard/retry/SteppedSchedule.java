package io.dupguard.retry;

import io.dupguard.internal.Checks;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Fixed steps (阶梯重试): after failed run {@code n} the task waits {@code steps[n-1]}, and the last
 * step repeats if {@link #maxAttempts()} allows more runs than there are steps. Immutable.
 */
public final class SteppedSchedule implements RetrySchedule {
    private final List<Duration> steps;
    private final int maxAttempts;

    private SteppedSchedule(List<Duration> steps, int maxAttempts) {
        this.steps = steps;
        this.maxAttempts = maxAttempts;
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder, not thread-safe
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The pauses, in order.
     *
     * @return the pauses; unmodifiable, at least one
     */
    public List<Duration> steps() {
        return steps;
    }

    @Override
    public Duration delayAfter(int failedAttempt) {
        Checks.atLeast(failedAttempt, 1, "failedAttempt");
        return steps.get(Math.min(failedAttempt, steps.size()) - 1);
    }

    @Override
    public int maxAttempts() {
        return maxAttempts;
    }

    @Override
    public String toString() {
        return "stepped" + steps + " x" + maxAttempts;
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private List<Duration> steps;
        private int maxAttempts;

        private Builder() {}

        /**
         * The pauses, each positive; at least one. Unless set, {@code maxAttempts} becomes steps +
         * 1.
         *
         * @param steps the pauses, each positive; at least one
         * @return this builder
         */
        public Builder steps(Duration... steps) {
            Objects.requireNonNull(steps, "steps must not be null");
            if (steps.length == 0) {
                throw new IllegalArgumentException("steps must hold at least one pause");
            }
            for (int i = 0; i < steps.length; i++) {
                Checks.positive(steps[i], "steps[" + i + "]");
            }
            this.steps = List.of(steps);
            return this;
        }

        /**
         * Runs in all, the first included; at least 1.
         *
         * @param maxAttempts the number of runs before the task is BLOCKED; at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code maxAttempts} is below 1
         */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = Checks.atLeast(maxAttempts, 1, "maxAttempts");
            return this;
        }

        /**
         * @return an immutable, thread-safe schedule
         * @throws IllegalArgumentException if no steps were given
         */
        public SteppedSchedule build() {
            if (steps == null) {
                throw new IllegalArgumentException("steps must be set");
            }
            return new SteppedSchedule(steps, maxAttempts == 0 ? steps.size() + 1 : maxAttempts);
        }
    }
}

package io.dupguard.retry;

import io.dupguard.internal.Checks;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Growing pauses: {@code min(cap, initial × multiplier^(n-1))} after failed run {@code n}, then
 * shortened by a random fraction of up to {@code jitter} so that tasks failing together (an outage
 * downstream) do not all come back at the same instant. Immutable and thread-safe.
 */
public final class ExponentialSchedule implements RetrySchedule {
    /** First pause: 1 s. */
    public static final Duration DEFAULT_INITIAL = Duration.ofSeconds(1);
    /** Growth per failure: 2. */
    public static final double DEFAULT_MULTIPLIER = 2.0;
    /** Longest pause: 1 h. */
    public static final Duration DEFAULT_CAP = Duration.ofHours(1);
    /** Up to 20 % of a pause is taken off at random. */
    public static final double DEFAULT_JITTER = 0.2;
    /** Runs in all: 10. */
    public static final int DEFAULT_MAX_ATTEMPTS = 10;

    private final Duration initial;
    private final double multiplier;
    private final Duration cap;
    private final double jitter;
    private final int maxAttempts;

    private ExponentialSchedule(Builder b) {
        this.initial = b.initial;
        this.multiplier = b.multiplier;
        this.cap = b.cap;
        this.jitter = b.jitter;
        this.maxAttempts = b.maxAttempts;
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder, not thread-safe
     */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Duration delayAfter(int failedAttempt) {
        Checks.atLeast(failedAttempt, 1, "failedAttempt");
        double nanos = Checks.saturatedNanos(initial) * Math.pow(multiplier, failedAttempt - 1.0);
        double capped = Math.min(nanos, Checks.saturatedNanos(cap));
        double jittered = capped * (1.0 - jitter * ThreadLocalRandom.current().nextDouble());
        return Duration.ofNanos(Math.max(1L, (long) jittered));
    }

    @Override
    public int maxAttempts() {
        return maxAttempts;
    }

    @Override
    public String toString() {
        return "exponential[initial=" + initial + ", multiplier=" + multiplier + ", cap=" + cap + ", jitter=" + jitter
                + "] x" + maxAttempts;
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private Duration initial = DEFAULT_INITIAL;
        private double multiplier = DEFAULT_MULTIPLIER;
        private Duration cap = DEFAULT_CAP;
        private double jitter = DEFAULT_JITTER;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;

        private Builder() {}

        /**
         * The first pause; positive.
         *
         * @param initial the first pause; not null, positive
         * @return this builder
         */
        public Builder initial(Duration initial) {
            this.initial = Checks.positive(initial, "initial");
            return this;
        }

        /**
         * Growth per failure; at least 1.0 and finite.
         *
         * @param multiplier the factor applied per failure; finite, at least 1.0
         * @return this builder
         * @throws IllegalArgumentException if {@code multiplier} is below 1.0 or not finite
         */
        public Builder multiplier(double multiplier) {
            if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
                throw new IllegalArgumentException("multiplier must be a finite number >= 1.0, was " + multiplier);
            }
            this.multiplier = multiplier;
            return this;
        }

        /**
         * The longest pause; positive and not shorter than {@code initial} (checked by {@link
         * #build()}).
         *
         * @param cap the longest pause; not null, positive
         * @return this builder
         */
        public Builder cap(Duration cap) {
            this.cap = Checks.positive(cap, "cap");
            return this;
        }

        /**
         * Largest fraction taken off a pause at random, in [0, 1).
         *
         * @param jitter the largest fraction removed at random from each pause, in [0, 1); 0 means
         *     none
         * @return this builder
         * @throws IllegalArgumentException if {@code jitter} is outside [0, 1)
         */
        public Builder jitter(double jitter) {
            if (!(jitter >= 0.0 && jitter < 1.0)) {
                throw new IllegalArgumentException("jitter must be in [0, 1), was " + jitter);
            }
            this.jitter = jitter;
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
         * @throws IllegalArgumentException if {@code cap} is shorter than {@code initial}
         */
        public ExponentialSchedule build() {
            Objects.requireNonNull(initial);
            if (cap.compareTo(initial) < 0) {
                throw new IllegalArgumentException(
                        "cap must not be shorter than initial (" + initial + "), was " + cap);
            }
            return new ExponentialSchedule(this);
        }
    }
}

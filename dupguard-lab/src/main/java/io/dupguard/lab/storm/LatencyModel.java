package io.dupguard.lab.storm;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * Heavy-tailed service latency: log-normal around {@code median}, clamped to {@code [min, max]}.
 * With the defaults (6 ms median, σ 0.85, 2–80 ms) about 1.3 % of attempts outlast a 40 ms client
 * timeout — the slow tail that makes clients retry.
 *
 * @param median the 50th percentile
 * @param sigma standard deviation of the logarithm; larger means a heavier tail
 * @param min the fastest an attempt can be (also the narrowest check-then-act window)
 * @param max the slowest an attempt can be
 */
public record LatencyModel(Duration median, double sigma, Duration min, Duration max) {
    public static final LatencyModel DEFAULT =
            new LatencyModel(Duration.ofMillis(6), 0.85, Duration.ofMillis(2), Duration.ofMillis(80));

    public LatencyModel {
        if (median.isNegative() || median.isZero() || min.isNegative() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("latency needs 0 <= min <= max and a positive median");
        }
        if (!(sigma >= 0)) {
            throw new IllegalArgumentException("sigma must not be negative");
        }
    }

    /** One latency in nanoseconds. */
    public long sampleNanos(SplittableRandom random) {
        double nanos = median.toNanos() * Math.exp(sigma * random.nextGaussian());
        return Math.max(min.toNanos(), Math.min(max.toNanos(), (long) nanos));
    }
}

package io.dupguard.retry;

import java.time.Duration;

/**
 * When a failed task runs again, and how many runs it gets before it is parked for a person (guarantee
 * R2). Implementations are immutable and thread-safe: {@link SteppedSchedule} (阶梯重试, stepped
 * fixed steps) and {@link ExponentialSchedule} (growing with jitter, capped).
 */
public interface RetrySchedule {
    /** Stepped retries: 10 s, 30 s, 1 min, 5 min, 30 min, 2 h; seven runs in all. */
    RetrySchedule DEFAULT = stepped(
            Duration.ofSeconds(10),
            Duration.ofSeconds(30),
            Duration.ofMinutes(1),
            Duration.ofMinutes(5),
            Duration.ofMinutes(30),
            Duration.ofHours(2));

    /**
     * The pause after failed run {@code failedAttempt} (1 for the first run) before the next one.
     *
     * @param failedAttempt the run that failed, 1 for the first
     * @return the pause before the next run; positive, never null
     * @throws IllegalArgumentException if {@code failedAttempt < 1}
     */
    Duration delayAfter(int failedAttempt);

    /**
     * Runs in all, the first included; after the last one fails the task is BLOCKED.
     *
     * @return the number of runs, at least 1
     */
    int maxAttempts();

    /**
     * A stepped schedule with these pauses and one run per pause plus the first.
     *
     * @param steps the pauses, each positive; at least one
     * @return an immutable schedule of {@code steps.length + 1} runs
     */
    static RetrySchedule stepped(Duration... steps) {
        return SteppedSchedule.builder().steps(steps).build();
    }

    /**
     * A builder of a stepped schedule.
     *
     * @return a new builder
     */
    static SteppedSchedule.Builder steppedBuilder() {
        return SteppedSchedule.builder();
    }

    /**
     * A builder of an exponential schedule with jitter and a cap.
     *
     * @return a new builder
     */
    static ExponentialSchedule.Builder exponential() {
        return ExponentialSchedule.builder();
    }
}

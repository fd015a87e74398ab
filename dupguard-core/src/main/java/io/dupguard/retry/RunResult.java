package io.dupguard.retry;

import java.util.Objects;
import java.util.Optional;

/**
 * What {@link RetryLog#run} did (guarantee R6: the caller learns the outcome; a failure is never left
 * looking like success).
 *
 * @param outcome the outcome
 * @param taskId the recorded task's id; 0 when the inline run succeeded (nothing recorded)
 * @param taskKey the task key the handler saw
 * @param failure the inline run's failure, or null
 */
public record RunResult(Outcome outcome, long taskId, String taskKey, Throwable failure) {
    /**
     * @param outcome the outcome; not null
     * @param taskId the recorded task's id; 0 when the inline run succeeded (nothing recorded)
     * @param taskKey the task key the handler saw; not null
     * @param failure the inline run's failure, or null
     * @throws NullPointerException if {@code outcome} or {@code taskKey} is null
     */
    public RunResult {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(taskKey, "taskKey");
    }

    /** The outcomes of an inline run. */
    public enum Outcome {
        /** The handler succeeded; nothing was recorded. */
        SUCCEEDED,
        /** The handler failed retryably; the task is recorded and will run again. */
        RETRY_SCHEDULED,
        /** The handler failed and cannot be retried; the task is recorded BLOCKED and an alert fired. */
        BLOCKED
    }

    /**
     * The failure, if the inline run failed.
     *
     * @return the failure, or empty if the run succeeded
     */
    public Optional<Throwable> failureIfAny() {
        return Optional.ofNullable(failure);
    }
}

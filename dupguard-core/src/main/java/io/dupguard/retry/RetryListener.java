package io.dupguard.retry;

/**
 * Hooks reporting what happens to tasks, for metrics and for callers that wait on an outcome (SPEC
 * R6: a failed task is reported as failed). Called on worker threads (or the caller's, for {@link
 * RetryLog#run}); implementations must be thread-safe, fast, and must not throw. All methods default
 * to no-op.
 */
public interface RetryListener {
    /** Shared no-op instance. */
    RetryListener NONE = new RetryListener() {};

    /** The task succeeded ({@code taskId} is 0 for a successful inline run, which records nothing). */
    default void onSucceeded(long taskId, String type, int attempt) {}

    /** Run {@code attempt} failed and the task will run again after {@code delayMillis}. */
    default void onRetryScheduled(long taskId, String type, int attempt, long delayMillis, Throwable failure) {}

    /** The task was parked for a person; an alert fired. */
    default void onBlocked(long taskId, String type, int attempt, Alert.Reason reason, String error) {}

    /** A worker's write was refused because its lease was taken over; another worker owns the task. */
    default void onLeaseLost(long taskId, String type, int attempt) {}

    /** Claiming due tasks failed (store outage); the worker backs off and tries again. */
    default void onPollFailed(Throwable failure) {}
}

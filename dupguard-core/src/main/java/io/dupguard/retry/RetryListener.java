package io.dupguard.retry;

/**
 * Hooks reporting what happens to tasks, for metrics and for callers that wait on an outcome (guarantee
 * R6: a failed task is reported as failed). Called on worker threads (or the caller's, for {@link
 * RetryLog#run}); implementations must be thread-safe, fast, and must not throw. All methods default
 * to no-op.
 */
public interface RetryListener {
    /** Shared no-op instance. */
    RetryListener NONE = new RetryListener() {};

    /**
     * The task succeeded ({@code taskId} is 0 for a successful inline run, which records nothing).
     *
     * @param taskId the task's id, or 0 for a successful inline run
     * @param type the task type
     * @param attempt the run that succeeded, 1 for the first
     */
    default void onSucceeded(long taskId, String type, int attempt) {}

    /**
     * Run {@code attempt} failed and the task will run again after {@code delayMillis}.
     *
     * @param taskId the task's id
     * @param type the task type
     * @param attempt the run that failed, 1 for the first
     * @param delayMillis the pause before the next run, in milliseconds
     * @param failure what the handler threw
     */
    default void onRetryScheduled(long taskId, String type, int attempt, long delayMillis, Throwable failure) {}

    /**
     * The task was parked for a person; an alert fired.
     *
     * @param taskId the task's id
     * @param type the task type
     * @param attempt the last run, 1 for the first
     * @param reason why the task was parked
     * @param error the recorded error text, possibly null
     */
    default void onBlocked(long taskId, String type, int attempt, Alert.Reason reason, String error) {}

    /**
     * A worker's write was refused because its lease was taken over; another worker owns the task.
     *
     * @param taskId the task's id
     * @param type the task type
     * @param attempt the run whose write was refused
     */
    default void onLeaseLost(long taskId, String type, int attempt) {}

    /**
     * Claiming due tasks failed (store outage); the worker backs off and tries again.
     *
     * @param failure what the store threw
     */
    default void onPollFailed(Throwable failure) {}
}

package io.dupguard.retry;

/**
 * The one piece of code that performs a task type's step (guarantee R4): {@link RetryLog#run} calls it
 * inline on the normal path and the workers call it for every retry, so a retry is never a copy.
 *
 * <p>Returning normally means the step took effect; throwing means it did not, and the type's
 * {@link RetryClassifier} decides whether it is retried or blocked. A handler whose effect is a
 * write to the task store's database should make that write and {@link
 * TaskContext#completeInTransaction} in one transaction; one that calls another service should pass
 * {@link TaskContext#taskKey()} as the idempotency key, since a crash after the call makes the task
 * run again. Handlers may be called concurrently for different tasks.
 */
@FunctionalInterface
public interface TaskHandler {
    /**
     * Performs the step once.
     *
     * @param task the task: payload, key, attempt, and its transactional completion
     * @throws Exception if the step did not take effect; the classifier decides what happens next
     */
    void handle(TaskContext task) throws Exception;
}

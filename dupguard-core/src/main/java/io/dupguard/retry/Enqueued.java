package io.dupguard.retry;

/**
 * The answer to an enqueue.
 *
 * @param id the task's id
 * @param created true if this call recorded the task, false if a task of the same type with the
 *     same dedup key existed and is returned instead
 */
public record Enqueued(long id, boolean created) {}

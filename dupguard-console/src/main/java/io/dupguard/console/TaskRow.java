package io.dupguard.console;

import io.dupguard.retry.TaskState;
import java.time.Instant;

/**
 * A retry task as the console shows it. {@code payload} is at most {@link RetryTasks#PAYLOAD_LIMIT}
 * bytes (empty in lists), {@code payloadSize} the stored size; {@code updatedAt} is the version an
 * action compares before it changes the task.
 *
 * @param id the task id
 * @param type the task type
 * @param taskKey the task key
 * @param dedupKey the dedup key, or null
 * @param state the state
 * @param attempts runs since the task was created or last unblocked
 * @param dueAt the due time (PENDING), lease end (RUNNING), or null
 * @param lastError the last failure's text, or null
 * @param createdAt when the task was recorded, by the database's clock
 * @param updatedAt the last change, by the database's clock
 * @param payload the payload's first bytes
 * @param payloadSize the payload's size in bytes
 */
public record TaskRow(
        long id,
        String type,
        String taskKey,
        String dedupKey,
        TaskState state,
        int attempts,
        Instant dueAt,
        String lastError,
        Instant createdAt,
        Instant updatedAt,
        byte[] payload,
        int payloadSize) {}

package io.dupguard.retry;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;

/**
 * A snapshot of a recorded task, as {@link RetryLog#status(long)} and the operator views return it.
 *
 * @param id the store's id of the task
 * @param type the task type
 * @param taskKey the key the handler passes downstream (the same on every attempt)
 * @param dedupKey the dedup key, or null
 * @param state the state when read
 * @param attempts runs started since the task was recorded or last unblocked
 * @param dueAt when a PENDING task is due, or a RUNNING task's lease ends; null when terminal
 * @param lastError the last failure's description, or null
 * @param createdAt when the task was recorded (store time)
 * @param updatedAt the last state change (store time)
 * @param payload the handler's input (copied on access)
 */
public record RetryTask(
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
        byte[] payload) {
    /**
     * @param id the store's id of the task
     * @param type the task type; not null
     * @param taskKey the key the handler passes downstream (the same on every attempt)
     * @param dedupKey the dedup key, or null
     * @param state the state when read; not null
     * @param attempts runs started since the task was recorded or last unblocked
     * @param dueAt when a PENDING task is due, or a RUNNING task's lease ends; null when terminal
     * @param lastError the last failure's description, or null
     * @param createdAt when the task was recorded (store time)
     * @param updatedAt the last state change (store time)
     * @param payload the handler's input (copied on access)
     * @throws NullPointerException if {@code type} or {@code state} is null; a null payload becomes
     *     empty
     */
    public RetryTask {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(state, "state");
        payload = payload == null ? new byte[0] : payload.clone();
    }

    /**
     * A copy of the payload.
     *
     * @return a fresh copy of the payload bytes; never null
     */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /**
     * The payload decoded as UTF-8.
     *
     * @return the payload as text; never null
     */
    public String payloadText() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryTask t && id == t.id && state == t.state && attempts == t.attempts;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(id);
    }

    @Override
    public String toString() {
        return "RetryTask[id=" + id + ", type=" + type + ", state=" + state + ", attempts=" + attempts + ", dueAt="
                + dueAt + ", lastError=" + lastError + "]";
    }
}

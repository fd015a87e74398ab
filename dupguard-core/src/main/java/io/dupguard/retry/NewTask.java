package io.dupguard.retry;

import io.dupguard.internal.Checks;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.UUID;

/**
 * A task about to be recorded: its type, payload, optional dedup key and the task key generated
 * <b>before</b> anything runs (guarantee K8), so the inline run and every retry pass the same key
 * downstream. Validated on construction; immutable (the payload is copied).
 *
 * @param type the task type, naming its handler: 1–{@value #MAX_TYPE_LENGTH} characters, no control
 *     characters
 * @param payload the handler's input, at most {@value #MAX_PAYLOAD_BYTES} bytes
 * @param dedupKey null, or 1–{@value #MAX_DEDUP_KEY_LENGTH} characters: a second task of the same
 *     type with the same dedup key is never created
 * @param taskKey 32 lower-case hex digits, unique per task
 */
public record NewTask(String type, byte[] payload, String dedupKey, String taskKey) {
    /** Longest task type. */
    public static final int MAX_TYPE_LENGTH = 64;
    /** Longest dedup key. */
    public static final int MAX_DEDUP_KEY_LENGTH = 255;
    /** Largest payload: 1 MiB. A task carries a reference to big data, not the data. */
    public static final int MAX_PAYLOAD_BYTES = 1 << 20;

    /**
     * @param type the task type, naming its handler: 1–{@value #MAX_TYPE_LENGTH} characters, no
     *     control characters
     * @param payload the handler's input, at most {@value #MAX_PAYLOAD_BYTES} bytes
     * @param dedupKey null, or 1–{@value #MAX_DEDUP_KEY_LENGTH} characters: a second task of the
     *     same type with the same dedup key is never created
     * @param taskKey 32 lower-case hex digits, unique per task
     * @throws io.dupguard.InvalidIdentifierException if the type or dedup key is blank, too long or holds
     *     control characters
     * @throws IllegalArgumentException if the payload is larger than {@value #MAX_PAYLOAD_BYTES}
     *     bytes or the task key is malformed
     */
    public NewTask {
        Checks.text(type, MAX_TYPE_LENGTH, "type");
        Objects.requireNonNull(payload, "payload must not be null");
        if (payload.length > MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException(
                    "payload must be at most " + MAX_PAYLOAD_BYTES + " bytes, was " + payload.length);
        }
        payload = payload.clone();
        if (dedupKey != null) {
            Checks.text(dedupKey, MAX_DEDUP_KEY_LENGTH, "dedupKey");
        }
        if (taskKey == null || !taskKey.matches("[0-9a-f]{32}")) {
            throw new IllegalArgumentException("taskKey must be 32 lower-case hex digits, was '" + taskKey + "'");
        }
    }

    /**
     * A task with a fresh random task key; {@code dedupKey} may be null.
     *
     * @param type the task type, which names its handler; a valid identifier, not null
     * @param payload the handler's input; not null, at most {@link #MAX_PAYLOAD_BYTES} bytes
     *     (copied)
     * @param dedupKey the business operation's key, so that a second task of this type and key is
     *     not recorded; null for none
     * @return the new task
     */
    public static NewTask of(String type, byte[] payload, String dedupKey) {
        return new NewTask(type, payload, dedupKey, newTaskKey());
    }

    /**
     * A task whose payload is {@code text} in UTF-8.
     *
     * @param type the task type, which names its handler; a valid identifier, not null
     * @param text the handler's input as text; not null, at most {@link #MAX_PAYLOAD_BYTES} bytes
     *     in UTF-8
     * @param dedupKey the business operation's key, or null for none
     * @return the new task
     */
    public static NewTask of(String type, String text, String dedupKey) {
        Objects.requireNonNull(text, "payload must not be null");
        return of(type, text.getBytes(StandardCharsets.UTF_8), dedupKey);
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

    /** The payload without a copy; for backends, which never modify it. */
    byte[] payloadBytes() {
        return payload;
    }

    static String newTaskKey() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NewTask t
                && type.equals(t.type)
                && java.util.Arrays.equals(payload, t.payload)
                && Objects.equals(dedupKey, t.dedupKey)
                && taskKey.equals(t.taskKey);
    }

    @Override
    public int hashCode() {
        return taskKey.hashCode();
    }

    @Override
    public String toString() {
        return "NewTask[type=" + type + ", taskKey=" + taskKey + ", dedupKey=" + dedupKey + ", payload="
                + payload.length + " bytes]";
    }
}

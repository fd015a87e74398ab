package io.dupguard.retry;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.OptionalLong;

/** What a {@link TaskHandler} learns about the task it runs. Confined to the handler's call. */
public interface TaskContext {
    /**
     * The task type.
     *
     * @return the task type; never null
     */
    String type();

    /**
     * A copy of the payload.
     *
     * @return a fresh copy of the payload; never null
     */
    byte[] payload();

    /**
     * The payload decoded as UTF-8.
     *
     * @return the payload as text; never null
     */
    default String payloadText() {
        return new String(payload(), StandardCharsets.UTF_8);
    }

    /**
     * The key to pass downstream as the idempotency key: generated before the first run and the same
     * on every retry (guarantee K8).
     *
     * @return the task key; never null, the same on every run of the task
     */
    String taskKey();

    /**
     * The task's id; empty for the inline run of {@link RetryLog#run}, which records nothing unless
     * it fails.
     *
     * @return the recorded task's id, or empty for the inline run
     */
    OptionalLong taskId();

    /**
     * 1 for the first run, 2 for the first retry, … (counted since the task was recorded or
     * unblocked).
     *
     * @return the run number, 1 for the first
     */
    int attempt();

    /**
     * Marks the task SUCCEEDED inside the caller's open transaction on {@code connection}, which must
     * reach the task store's database: the handler's own writes and the completion then commit
     * together or not at all, so a crash can never leave the effect without the completion (or the
     * reverse) and no retry repeats it. Call it last, just before committing. Does nothing for the
     * inline run of {@link RetryLog#run}, which has no recorded task.
     *
     * @param connection a connection to the task store's database inside an open transaction; not
     *     null, not committed here
     * @throws io.dupguard.LeaseLostException if the task is no longer this worker's (its lease ran
     *     out and another worker claimed it): the caller must roll back
     * @throws UnsupportedOperationException if the task store is not a database
     * @throws io.dupguard.StoreUnavailableException if the statement fails
     */
    void completeInTransaction(Connection connection);
}

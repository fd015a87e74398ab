package io.dupguard.retry;

import java.util.Objects;

/**
 * What an {@link AlertSink} is told: a task needs a person (guarantees R2, R3).
 *
 * @param reason why the alert fired
 * @param taskId the task's id, or 0 if the failure could not be recorded
 * @param type the task type
 * @param taskKey the task's key
 * @param attempt the run that failed
 * @param error the failure's description (class and message), or the reason for blocking
 */
public record Alert(Reason reason, long taskId, String type, String taskKey, int attempt, String error) {
    /**
     * @param reason why the alert fired; not null
     * @param taskId the task's id, or 0 if the failure could not be recorded
     * @param type the task type; not null
     * @param taskKey the task's key
     * @param attempt the run that failed
     * @param error the failure's description (class and message), or the reason for blocking
     * @throws NullPointerException if {@code reason} or {@code type} is null
     */
    public Alert {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(type, "type");
    }

    /** Why an alert fired. */
    public enum Reason {
        /** The last allowed run failed: the task is BLOCKED. */
        ATTEMPTS_EXHAUSTED,
        /** The failure is not retryable: the task is BLOCKED. */
        NOT_RETRYABLE,
        /** No handler for the type in the process that claimed it: the task is BLOCKED. */
        UNKNOWN_TYPE,
        /** A money-related task type failed for the first time; it will be retried. */
        MONEY_FIRST_FAILURE
    }

    /**
     * Whether the task was parked for a person (all reasons but {@link
     * Reason#MONEY_FIRST_FAILURE}).
     *
     * @return true if the task is BLOCKED; false for the first-failure alert of a money-related
     *     task
     */
    public boolean blocked() {
        return reason != Reason.MONEY_FIRST_FAILURE;
    }
}

package io.dupguard.retry;

/**
 * Life cycle of a retry task (guarantees R1–R6):
 *
 * <pre>
 * PENDING ──claim──▶ RUNNING ──▶ SUCCEEDED
 *    ▲                  │  └──▶ BLOCKED ──unblock──▶ PENDING
 *    └──retry later─────┘
 * PENDING | BLOCKED ──cancel──▶ CANCELLED
 * </pre>
 *
 * SUCCEEDED, BLOCKED and CANCELLED are terminal until a person acts on a blocked task. A RUNNING
 * task whose lease ran out (its worker crashed) is claimed again like a due PENDING one.
 */
public enum TaskState {
    /** Waiting until its due time. */
    PENDING('P'),
    /** Claimed by a worker holding a lease. */
    RUNNING('R'),
    /** The handler succeeded; terminal. */
    SUCCEEDED('S'),
    /** Parked for a person: not retryable, attempts exhausted, or no handler; an alert fired. */
    BLOCKED('B'),
    /** Withdrawn by a person or the application; terminal. */
    CANCELLED('C');

    private final char code;

    TaskState(char code) {
        this.code = code;
    }

    /**
     * The one-character code stored by database backends.
     *
     * @return the code, one character
     */
    public char code() {
        return code;
    }

    /**
     * Whether the task will not run again unless a person acts.
     *
     * @return true for SUCCEEDED, BLOCKED and CANCELLED
     */
    public boolean isTerminal() {
        return this == SUCCEEDED || this == BLOCKED || this == CANCELLED;
    }

    /**
     * The state with this code.
     *
     * @param code a code as returned by {@link #code()}
     * @return the state
     * @throws IllegalArgumentException for an unknown code
     */
    public static TaskState ofCode(char code) {
        for (TaskState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown task state code '" + code + "'");
    }
}

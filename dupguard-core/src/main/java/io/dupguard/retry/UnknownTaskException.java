package io.dupguard.retry;

import io.dupguard.DupguardException;

/** An operation named a task id the store does not hold (never recorded, or already purged). */
public class UnknownTaskException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** The task id that was not found (serialized). */
    private final long id;

    /** @param id the task id that was not found */
    public UnknownTaskException(long id) {
        super("no retry task with id " + id);
        this.id = id;
    }

    /**
     * The id that was not found.
     *
     * @return the task id
     */
    public long id() {
        return id;
    }
}

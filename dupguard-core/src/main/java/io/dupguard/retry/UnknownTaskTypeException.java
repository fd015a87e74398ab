package io.dupguard.retry;

import io.dupguard.DupguardException;

/** {@link RetryLog#run} or {@link RetryLog#enqueue} named a task type that has no handler. */
public class UnknownTaskTypeException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** The task type without a handler (serialized). */
    private final String type;

    /**
     * @param type the type without a handler
     * @param known the registered types, for the message
     */
    public UnknownTaskTypeException(String type, java.util.Collection<String> known) {
        super("no handler registered for task type '" + type + "'; registered: " + known);
        this.type = type;
    }

    /**
     * The type without a handler.
     *
     * @return the task type; never null
     */
    public String type() {
        return type;
    }
}

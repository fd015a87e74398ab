package io.dupguard;

/**
 * The caller's claim or lock lease ran out and was taken over by someone else, so the caller's
 * write was refused. The caller must treat its work as not recorded (and, where it has side
 * effects, rely on the new owner or a fence to keep the effect single).
 */
public class LeaseLostException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** The key or lock name whose lease was lost (serialized). */
    private final String name;

    /**
     * @param name the key or lock name whose lease was lost
     * @param message what happened
     */
    public LeaseLostException(String name, String message) {
        super(message);
        this.name = name;
    }

    /**
     * The key or lock name whose lease was lost.
     *
     * @return the idempotency key (as text) or lock name whose lease was lost; never null
     */
    public String name() {
        return name;
    }
}

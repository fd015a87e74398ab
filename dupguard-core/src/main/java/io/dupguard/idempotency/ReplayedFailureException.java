package io.dupguard.idempotency;

import io.dupguard.DupguardException;

/**
 * The first request with this key failed with an exception that the {@link FailurePolicy}
 * classified as final, and the failure was stored; this duplicate gets the same failure instead of
 * running the work again.
 */
public class ReplayedFailureException extends DupguardException {
    private static final long serialVersionUID = 1L;

    private final transient IdempotencyKey key;
    /** Class name of the first call's exception (serialized). */
    private final String originalType;
    /** Message of the first call's exception, or null (serialized). */
    private final String originalMessage;

    /**
     * @param key the key whose first call failed
     * @param originalType fully qualified class name of the first call's exception
     * @param originalMessage message of the first call's exception, or null
     */
    public ReplayedFailureException(IdempotencyKey key, String originalType, String originalMessage) {
        super("request " + key + " failed before with " + originalType
                + (originalMessage == null ? "" : ": " + originalMessage));
        this.key = key;
        this.originalType = originalType;
        this.originalMessage = originalMessage;
    }

    /**
     * The key whose stored failure was replayed; null after deserialisation.
     *
     * @return the key, or null after deserialisation
     */
    public IdempotencyKey key() {
        return key;
    }

    /**
     * Fully qualified class name of the first call's exception.
     *
     * @return the class name; never null
     */
    public String originalType() {
        return originalType;
    }

    /**
     * Message of the first call's exception, or null.
     *
     * @return the message; may be null
     */
    public String originalMessage() {
        return originalMessage;
    }
}

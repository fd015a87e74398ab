package io.dupguard.idempotency;

import io.dupguard.DupguardException;

/**
 * The key was used before with a different request payload (guarantee K3): say, the same request id
 * with a different amount. This is a client error, never a silent success. HTTP layers usually map
 * it to {@code 422 Unprocessable Entity}.
 */
public class PayloadMismatchException extends DupguardException {
    private static final long serialVersionUID = 1L;

    private final transient IdempotencyKey key;

    /** @param key the key that was used with another fingerprint */
    public PayloadMismatchException(IdempotencyKey key) {
        super("request " + key + " was already used with a different payload");
        this.key = key;
    }

    /**
     * The key that was used with another payload; null after deserialisation.
     *
     * @return the key, or null after deserialisation
     */
    public IdempotencyKey key() {
        return key;
    }
}

package io.dupguard.idempotency;

import io.dupguard.DupguardException;

/**
 * A duplicate arrived while the first request with the same key is still running: with {@link
 * InFlightPolicy#reject()} at once, with {@link InFlightPolicy#waitUpTo} after the wait ran out.
 * HTTP layers usually map it to {@code 409 Conflict}; the client may retry later and will then get
 * the first result.
 */
public class RequestInFlightException extends DupguardException {
    private static final long serialVersionUID = 1L;

    private final transient IdempotencyKey key;

    /**
     * @param key the key whose first call is still running
     * @param detail appended to the message (e.g. how long was waited), or empty
     */
    public RequestInFlightException(IdempotencyKey key, String detail) {
        super("request " + key + " is still in progress" + detail);
        this.key = key;
    }

    /**
     * The key whose first call is still in progress; null after deserialisation.
     *
     * @return the key, or null after deserialisation
     */
    public IdempotencyKey key() {
        return key;
    }
}

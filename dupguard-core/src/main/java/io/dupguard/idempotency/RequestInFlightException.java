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

    public RequestInFlightException(IdempotencyKey key, String detail) {
        super("request " + key + " is still in progress" + detail);
        this.key = key;
    }

    public IdempotencyKey key() {
        return key;
    }
}

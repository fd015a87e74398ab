package io.dupguard.idempotency;

import io.dupguard.DupguardException;

/**
 * Part of the store SPI (docs/api.md): thrown by {@link IdempotencyStore#complete} of a store that records a key
 * only at completion (an <em>optimistic</em> claim, as in a database transaction where the work and
 * the record commit together) when a concurrent call recorded the same key first.
 *
 * <p>Before throwing, the store must have undone everything the work did (for a transactional store:
 * rolled the transaction back). {@link Idempotency} then claims the key again and so finds the other
 * call's record: it replays that result, or applies the in-flight policy if the record is still in
 * progress. An application that goes through {@link Idempotency} never sees this exception; only
 * code that calls a store's {@code complete} directly does.
 */
public final class ClaimLostException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** @param key the key another call recorded first */
    public ClaimLostException(IdempotencyKey key) {
        super("another call recorded " + key + " first; this call's work was undone");
    }
}

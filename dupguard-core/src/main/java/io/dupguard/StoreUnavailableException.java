package io.dupguard;

/**
 * The backing store (database, Redis, ZooKeeper) could not be reached or failed while answering.
 *
 * <p>dupguard never reads an outage as "not a duplicate": when the store cannot say whether an
 * operation already ran, the caller gets this exception and the operation does not run.
 */
public class StoreUnavailableException extends DupguardException {
    private static final long serialVersionUID = 1L;

    private final String store;

    public StoreUnavailableException(String store, String message, Throwable cause) {
        super(store + " unavailable: " + message, cause);
        this.store = store;
    }

    /** A short name of the store that failed, e.g. {@code "jdbc(postgresql)"} or {@code "redis"}. */
    public String store() {
        return store;
    }
}

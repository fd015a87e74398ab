package io.dupguard;

/**
 * The backing store (database, Redis, ZooKeeper) could not be reached or failed while answering.
 *
 * <p>dupguard never reads an outage as "not a duplicate": when the store cannot say whether an
 * operation already ran, the caller gets this exception and the operation does not run.
 */
public class StoreUnavailableException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** Short name of the store that failed (serialized). */
    private final String store;

    /**
     * @param store a short name of the store, e.g. {@code "redis"}
     * @param message what failed
     * @param cause the client's or driver's exception
     */
    public StoreUnavailableException(String store, String message, Throwable cause) {
        super(store + " unavailable: " + message, cause);
        this.store = store;
    }

    /**
     * A short name of the store that failed, e.g. {@code "jdbc(postgresql)"} or {@code "redis"}.
     *
     * @return the store's short name, for logs and metrics; never null
     */
    public String store() {
        return store;
    }
}

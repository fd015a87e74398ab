package io.dupguard;

/**
 * The store answers, but only reads: a database replica or standby, a read-only session, a server
 * started read-only (guarantee K7). dupguard refuses to work there, before any work runs: a replica lags
 * behind its primary, so a key recorded a moment ago may be missing on it, and answering from it
 * could let a duplicate through.
 *
 * <p>Not a {@link StoreUnavailableException}: the store is reachable and retrying the same call on
 * the same connection settings fails the same way. The fix is configuration — point the store at the
 * primary (for PostgreSQL, {@code targetServerType=primary} on a multi-host URL) — so the message
 * names the cause (e.g. {@code pg_is_in_recovery() = true}, {@code @@read_only = 1}, SQLState
 * {@code 25006}) and the fix. It is never read as "not a duplicate".
 */
public class ReadOnlyStoreException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** Short name of the store that refused (serialized). */
    private final String store;

    /**
     * @param store a short name of the store, e.g. {@code "jdbc(postgresql)"}
     * @param message the cause (what showed the store is read-only) and the fix
     * @param cause the driver's exception, or null if a query found the store read-only
     */
    public ReadOnlyStoreException(String store, String message, Throwable cause) {
        super(store + " is read-only: " + message, cause);
        this.store = store;
    }

    /**
     * A short name of the store that refused, e.g. {@code "jdbc(postgresql)"}.
     *
     * @return the store's short name, for logs and metrics; never null
     */
    public String store() {
        return store;
    }
}

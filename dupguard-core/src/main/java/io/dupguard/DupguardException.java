package io.dupguard;

/**
 * Root of every exception dupguard throws on purpose. Subclasses are named after the condition
 * ({@code RequestInFlightException}, {@code StoreUnavailableException}, ...) and carry the key or
 * name they concern, so callers can branch on the type instead of parsing messages.
 */
public class DupguardException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what went wrong, naming the key, lock or field concerned */
    public DupguardException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the key, lock or field concerned
     * @param cause the underlying failure, or null
     */
    public DupguardException(String message, Throwable cause) {
        super(message, cause);
    }
}

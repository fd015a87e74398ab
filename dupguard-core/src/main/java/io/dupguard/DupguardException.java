package io.dupguard;

/**
 * Root of every condition a dupguard feature or store reports at run time. Subclasses are named
 * after the condition ({@code RequestInFlightException}, {@code StoreUnavailableException}, ...)
 * and carry the key or name they concern, so callers can branch on the type instead of parsing
 * messages. A bad argument is not one of them: it is an {@link IllegalArgumentException} ({@link
 * InvalidIdentifierException} for a bad key, scope, name, type or owner id) or a {@link
 * NullPointerException}, as in the JDK.
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

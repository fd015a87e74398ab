package io.dupguard;

/**
 * Root of every exception dupguard throws on purpose. Subclasses are named after the condition
 * ({@code RequestInFlightException}, {@code StoreUnavailableException}, ...) and carry the key or
 * name they concern, so callers can branch on the type instead of parsing messages.
 */
public class DupguardException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public DupguardException(String message) {
        super(message);
    }

    public DupguardException(String message, Throwable cause) {
        super(message, cause);
    }
}

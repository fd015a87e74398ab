package io.dupguard.console;

/** An action by a user without the operator role. */
public final class ForbiddenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message why the user may not do this
     */
    public ForbiddenException(String message) {
        super(message);
    }
}

package io.dupguard.console;

/** Input the console cannot act on (an unknown id, a malformed value); its message says why. */
public final class BadRequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong with the request, for the operator
     */
    public BadRequestException(String message) {
        super(message);
    }
}

package io.dupguard.console;

/** A task, key or page that does not exist. */
final class NotFoundException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotFoundException(String message) {
        super(message);
    }
}

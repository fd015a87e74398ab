package io.dupguard.lab.probe;

/**
 * The probe was given something it cannot use (a query without {@code :key}, a body that is not
 * valid for its content type, a remote target without {@code allowRemote}); thrown before any
 * request is sent. The CLI prints the message and exits with status 2.
 */
public final class ProbeInputException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public ProbeInputException(String message) {
        super(message);
    }
}

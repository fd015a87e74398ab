package io.dupguard.lab.workload.order;

/** The payment platform failed; {@link #retryable()} is the service's classification (guarantee R3). */
final class PlatformException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean retryable;

    PlatformException(String message, boolean retryable) {
        super(message, null, false, false);
        this.retryable = retryable;
    }

    /** Timeouts and "busy" may be retried; a decline goes to a human (an alert). */
    boolean retryable() {
        return retryable;
    }
}

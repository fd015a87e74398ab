package io.dupguard.retry;

import io.dupguard.DupguardException;

/**
 * Thrown by a {@link TaskHandler} to say the step can never succeed by retrying (invalid account,
 * rejected card): the default {@link RetryClassifier} blocks the task at once and an alert fires.
 */
public class NonRetryableException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** @param message why the task cannot succeed by retrying */
    public NonRetryableException(String message) {
        super(message);
    }

    /**
     * @param message why the task cannot succeed by retrying
     * @param cause the underlying failure, or null
     */
    public NonRetryableException(String message, Throwable cause) {
        super(message, cause);
    }
}

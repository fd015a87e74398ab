package io.dupguard.spring.kafka;

/**
 * A record the dedup cannot let through: it has no idempotency key, its key is not a valid one, or
 * its key was already processed with another value. Retrying cannot change that, so the error
 * handlers the starter configures do not retry it: their recoverer (a dead-letter topic, or a log
 * line) acts at once.
 */
public class UndeduplicableRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong with the record
     */
    public UndeduplicableRecordException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong with the record
     * @param cause the underlying refusal
     */
    public UndeduplicableRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}

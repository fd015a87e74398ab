package io.dupguard.jdbc.dedupe;

import io.dupguard.DupguardException;

/**
 * A clean-up phase could not run or could not reach its goal. The message names what is wrong (the
 * table, column, option or database error) and what was left untouched; a failure before or inside
 * a batch deletes nothing, because every batch is one transaction.
 */
public class DedupeException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** True when the input was wrong, false when the work failed (serialized). */
    private final boolean badInput;

    DedupeException(String message, boolean badInput, Throwable cause) {
        super(message, cause);
        this.badInput = badInput;
    }

    static DedupeException badInput(String message) {
        return new DedupeException(message, true, null);
    }

    static DedupeException badInput(String message, Throwable cause) {
        return new DedupeException(message, true, cause);
    }

    static DedupeException failed(String message, Throwable cause) {
        return new DedupeException(message, false, cause);
    }

    /**
     * True when the input (names, options, permissions) was wrong, false when the work itself
     * failed.
     *
     * @return true for bad input, false for a failure of the work
     */
    public boolean isBadInput() {
        return badInput;
    }
}

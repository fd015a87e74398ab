package io.dupguard;

/**
 * A key, scope or name was rejected before it reached a store: null, blank, too long, or
 * containing control characters. Nothing is truncated or rewritten silently instead.
 */
public class InvalidIdentifierException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** @param message names the field and the rule it broke, e.g. {@code "scope must not be blank"} */
    public InvalidIdentifierException(String message) {
        super(message);
    }
}

package io.dupguard;

/**
 * A key, scope, subject, lock name, task type or owner id was rejected before it reached a store:
 * null, blank, too long, or containing control characters. Nothing is truncated or rewritten
 * silently instead.
 *
 * <p>It is an {@link IllegalArgumentException}, as the JDK reports a bad argument: the caller's
 * input is wrong and the same call can never succeed. So it is not a {@link DupguardException},
 * which reports a condition a feature or a store finds at run time. Every method and builder that
 * validates an identifier documents it as {@code @throws InvalidIdentifierException}, and a caller
 * that treats every bad argument alike catches {@code IllegalArgumentException}.
 */
public class InvalidIdentifierException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** @param message names the field and the rule it broke, e.g. {@code "scope must not be blank"} */
    public InvalidIdentifierException(String message) {
        super(message);
    }
}

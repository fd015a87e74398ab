package io.dupguard.spring.autoconfigure;

/**
 * A {@code dupguard.*} property has a value the starter cannot use. Start-up fails with this
 * exception; its message names the property, the value and the rule.
 */
public class InvalidDupguardPropertyException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final String property;

    public InvalidDupguardPropertyException(String property, Object value, String reason) {
        this(property, value, reason, null);
    }

    public InvalidDupguardPropertyException(String property, Object value, String reason, Throwable cause) {
        super("Invalid value '" + value + "' for property " + property + ": " + reason, cause);
        this.property = property;
    }

    /** The full name of the property, e.g. {@code dupguard.idempotency.retention}. */
    public String property() {
        return property;
    }

    /**
     * Runs {@code check} and turns the {@link IllegalArgumentException} a dupguard builder throws
     * into an error naming {@code property}.
     */
    public static <T> T check(String property, Object value, java.util.function.Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidDupguardPropertyException(property, value, String.valueOf(e.getMessage()), e);
        }
    }
}

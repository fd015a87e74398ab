package io.dupguard.spring.autoconfigure;

/**
 * A {@code dupguard.*} property has a value the starter cannot use. Start-up fails with this
 * exception; its message names the property, the value and the rule.
 */
public class InvalidDupguardPropertyException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** The full name of the invalid property (serialized). */
    private final String property;

    /**
     * An error naming the property, its value and the rule it breaks.
     *
     * @param property the full property name; not null
     * @param value the value as bound; may be null
     * @param reason the rule, e.g. {@code must be positive}; not null
     */
    public InvalidDupguardPropertyException(String property, Object value, String reason) {
        this(property, value, reason, null);
    }

    /**
     * An error naming the property, its value and the rule it breaks, caused by {@code cause}.
     *
     * @param property the full property name; not null
     * @param value the value as bound; may be null
     * @param reason the rule, e.g. {@code must be positive}; not null
     * @param cause the builder's exception; may be null
     */
    public InvalidDupguardPropertyException(String property, Object value, String reason, Throwable cause) {
        super("Invalid value '" + value + "' for property " + property + ": " + reason, cause);
        this.property = property;
    }

    /**
     * The full name of the property, e.g. {@code dupguard.idempotency.retention}.
     *
     * @return the property name; never null
     */
    public String property() {
        return property;
    }

    /**
     * Runs {@code check} and turns the {@link IllegalArgumentException} a dupguard builder throws
     * into an error naming {@code property}.
     *
     * @param <T> what {@code check} builds
     * @param property the full property name; not null
     * @param value the value as bound, for the message
     * @param check builds a dupguard object from the value; not null
     * @return what {@code check} built
     * @throws InvalidDupguardPropertyException if {@code check} threw an {@code
     *     IllegalArgumentException} or {@code NullPointerException}
     */
    public static <T> T check(String property, Object value, java.util.function.Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidDupguardPropertyException(property, value, String.valueOf(e.getMessage()), e);
        }
    }
}

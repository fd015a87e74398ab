package io.dupguard.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated bean method at most once per key: the first call runs and its return value is
 * stored; a duplicate (same scope and key) returns the stored value without running the method,
 * decoded into the method's full generic return type. A duplicate with a different fingerprint
 * throws {@link io.dupguard.idempotency.PayloadMismatchException}; one that arrives while the first
 * still runs throws {@link io.dupguard.idempotency.RequestInFlightException} or waits, as {@link
 * #inFlight()} says. An exception out of the method releases the key, so a retry runs again.
 *
 * <pre>{@code
 * @Idempotent(scope = "payments", key = "#request.id", fingerprint = {"#request.amount", "#request.account"})
 * public Receipt charge(PaymentRequest request) { ... }
 * }</pre>
 *
 * <p>Expressions are SpEL over the method's arguments: by name ({@code #request}, needs {@code
 * -parameters}, which Spring Boot's build plugins set), by position ({@code #p0}, {@code #a0}), or
 * {@code args}, {@code method} and {@code target} of the root object. They are parsed at start-up:
 * a syntax error fails start-up naming the method and the attribute.
 *
 * <p>With the jdbc store, a call made inside a Spring transaction on the application's DataSource
 * claims and completes inside that transaction ({@code dupguard.idempotency.join-transaction}), so
 * a rollback undoes the claim with the caller's writes.
 *
 * <p>Works through a Spring proxy: the method must be public or protected, not final, not static,
 * and called through the bean (a call from another method of the same object — self-invocation —
 * bypasses the proxy and is not idempotent). Private, final and static annotated methods fail
 * start-up. Results that complete later ({@code CompletableFuture}, reactive types) are refused at
 * start-up.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Idempotent {
    /**
     * Namespace of the keys, {@code [A-Za-z0-9._-]{1,64}}, e.g. {@code "payments"}.
     *
     * @return the scope
     */
    String scope();

    /**
     * SpEL giving the key (its string value is used, 1–255 characters).
     *
     * @return the SpEL expression of the key
     */
    String key();

    /**
     * SpEL expressions whose values (as canonical JSON) form the fingerprint; a duplicate whose
     * values differ is refused. Default: all arguments. Empty: no fingerprint check.
     *
     * @return the SpEL expressions of the fingerprint; empty for none
     */
    String[] fingerprint() default {"args"};

    /**
     * What a duplicate does while the first call runs; DEFAULT takes
     * dupguard.idempotency.in-flight.
     *
     * @return the in-flight behaviour
     */
    InFlightMode inFlight() default InFlightMode.DEFAULT;

    /**
     * With inFlight WAIT: how long to wait, e.g. {@code "5s"}; empty takes
     * dupguard.idempotency.max-wait.
     *
     * @return the wait as a duration ({@code "500ms"}, {@code "5s"}, ISO-8601), or empty for the
     *     default
     */
    String maxWait() default "";

    /**
     * How long the result is replayed, e.g. {@code "7d"}; empty takes
     * dupguard.idempotency.retention.
     *
     * @return the retention as a duration, or empty for the default
     */
    String retention() default "";

    /**
     * Fold the key to lower case, for identifiers that are case-insensitive by nature.
     *
     * @return true to compare keys case-insensitively
     */
    boolean ignoreCase() default false;

    /** In-flight behaviour of one method. */
    enum InFlightMode {
        /** dupguard.idempotency.in-flight. */
        DEFAULT,
        /** Throw RequestInFlightException at once. */
        REJECT,
        /** Wait for the first call, then replay its result. */
        WAIT
    }
}

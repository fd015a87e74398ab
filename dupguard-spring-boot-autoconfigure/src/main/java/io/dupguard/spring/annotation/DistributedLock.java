package io.dupguard.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated bean method holding the distributed lock {@link #name()} of the configured
 * {@link io.dupguard.lock.LockProvider}: acquired before the method (and before a transaction the
 * same method begins, so the lock covers the commit), released after it. Inside the method the
 * lease — and its fencing token for fenced writes — is {@link DistributedLocks#currentLease()}.
 *
 * <pre>{@code
 * @DistributedLock(name = "'account:' + #accountId", waitTime = "5s")
 * public void credit(long accountId, BigDecimal amount) {
 *     long token = DistributedLocks.currentLease().fencingToken();
 *     ...
 * }
 * }</pre>
 *
 * <p>If the lock is still held by another owner when {@link #waitTime()} ends, the method does not
 * run and {@link io.dupguard.lock.LockUnavailableException} is thrown. The same proxy rules as
 * {@link Idempotent} apply (public or protected, not final, no self-invocation); the name
 * expression is parsed at start-up.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {
    /**
     * SpEL giving the lock name, e.g. {@code "'account:' + #id"}.
     *
     * @return the SpEL expression of the lock name; its value must be a valid lock name
     */
    String name();

    /**
     * How long to wait for the lock, e.g. {@code "5s"}; {@code "0s"} fails at once. Default 30 s.
     *
     * @return the wait as a duration ({@code "500ms"}, {@code "5s"}, ISO-8601), or empty for the
     *     default
     */
    String waitTime() default "";

    /**
     * A fixed lease, e.g. {@code "30s"}: the lock frees itself after it even if the method still
     * runs. Empty (default): a watchdog renews the lease while the method runs.
     *
     * @return the fixed lease as a duration, or empty for watchdog renewal
     */
    String leaseTime() default "";
}

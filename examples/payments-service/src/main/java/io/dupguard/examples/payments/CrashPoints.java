package io.dupguard.examples.payments;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A test hook: kills the JVM at a named point of a payment's path, as {@code kill -9} would, so a
 * test can check what survives each crash ({@code PaymentsCrashIT}). Inert unless the system
 * property {@code example.crash-at} (or the environment variable {@code EXAMPLE_CRASH_AT}) is set.
 *
 * <p>The value is a point ({@code after-gateway}) or a point and the prefix of a payment reference
 * ({@code after-gateway:3f2a}): then only that payment's path halts, so other payments finish. The
 * JVM halts with {@link Runtime#halt(int)}: no shutdown hooks, no transaction ends cleanly, the
 * database rolls back what was not committed and the broker requeues what was not acknowledged.
 */
public final class CrashPoints {
    private static final String ARMED = armed();

    private CrashPoints() {}

    private static String armed() {
        String value = System.getProperty("example.crash-at", System.getenv("EXAMPLE_CRASH_AT"));
        if (value == null || value.isBlank()) {
            return null;
        }
        System.err.println("CrashPoints: armed at " + value + " (test hook; halts the JVM there)");
        return value.trim();
    }

    /**
     * Halts the JVM if it is armed at {@code point} for this payment reference.
     *
     * @param point the point's name, e.g. {@code after-insert}
     * @param paymentRef the payment the code is working on
     */
    public static void reach(String point, String paymentRef) {
        if (ARMED == null) {
            return;
        }
        int colon = ARMED.indexOf(':');
        String armedPoint = colon < 0 ? ARMED : ARMED.substring(0, colon);
        String prefix = colon < 0 ? "" : ARMED.substring(colon + 1);
        if (armedPoint.equals(point) && paymentRef.startsWith(prefix)) {
            System.err.println("CrashPoints: halting at " + point + " for " + paymentRef);
            System.err.flush();
            Runtime.getRuntime().halt(137);
        }
    }

    /**
     * Registers {@code beforeCommit} and {@code afterCommit} as points of the current transaction:
     * just before it commits, and once it has committed. Does nothing unless armed.
     *
     * @param beforeCommit the point reached before the commit
     * @param afterCommit the point reached after it
     * @param paymentRef the payment the transaction writes
     * @throws IllegalStateException if armed and no transaction synchronization is active
     */
    public static void aroundCommit(String beforeCommit, String afterCommit, String paymentRef) {
        if (ARMED == null) {
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
                reach(beforeCommit, paymentRef);
            }

            @Override
            public void afterCommit() {
                reach(afterCommit, paymentRef);
            }
        });
    }
}

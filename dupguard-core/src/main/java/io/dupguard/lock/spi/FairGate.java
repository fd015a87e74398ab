package io.dupguard.lock.spi;

import java.util.concurrent.TimeUnit;

/**
 * The fair queue of this JVM for one lock name: a fair one-permit semaphore ({@link
 * LocalLock#gate}), so local waiters are served first come, first served and only the head of the
 * queue talks to the store (no herd).
 *
 * <p>Invariants: at most one caller of this JVM owns the permit — the holder, or the caller
 * acquiring; a holder whose fixed lease ran out without a close (a stuck or abandoned thread)
 * would keep the permit forever, so a waiter checks every {@value #STEAL_CHECK_MILLIS} ms and takes
 * such a holder's permit over ({@link LocalLock#retireStaleHolder}).
 */
final class FairGate {
    static final long STEAL_CHECK_MILLIS = 50;
    private static final long STEAL_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(STEAL_CHECK_MILLIS);

    private FairGate() {}

    /**
     * Takes {@code local}'s permit, waiting until {@code deadline} ({@link System#nanoTime()}) if
     * {@code wait}.
     *
     * @return false if the wait ended first
     */
    static boolean enter(LocalLock local, boolean wait, long deadline) throws InterruptedException {
        while (true) {
            long slice = Math.min(remaining(deadline), STEAL_CHECK_NANOS);
            if (wait ? local.gate.tryAcquire(slice, TimeUnit.NANOSECONDS) : local.gate.tryAcquire()) {
                return true;
            }
            synchronized (local) {
                if (local.owner != null && !local.stillHeld()) {
                    local.retireStaleHolder();
                    return true; // the abandoned holder's permit is now ours
                }
            }
            if (!wait || remaining(deadline) <= 0) {
                return false;
            }
        }
    }

    /** Nanoseconds left until {@code deadline}, never negative. */
    static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }
}

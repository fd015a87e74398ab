package io.dupguard.lock.spi;

import io.dupguard.internal.Watchdog;
import io.dupguard.lock.LockOptions;
import java.time.Duration;
import java.util.concurrent.Semaphore;

/**
 * This JVM's view of one lock name: the holder, its hold count (reentrancy, L4) and the state the
 * {@link FairGate fair queue} and the {@link DirectHandOff direct hand-off} keep per name. Fields
 * other than the volatile ones are guarded by this object's monitor.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>{@code owner != null} exactly while a caller of this JVM holds the lock, and then {@code
 *       holds >= 1} counts its nested acquisitions; {@code token} and {@code fence} are that
 *       holding's store token and fencing token.
 *   <li>The holder (or the caller acquiring for it) owns the gate's one permit; it passes the permit
 *       on when its outermost hold closes.
 *   <li>A holder whose fixed lease ran out, or whose watchdog renewal was lost ({@code lostToken}),
 *       holds nothing any more: the next caller of this name retires it ({@link
 *       #retireStaleHolder}), taking its permit over and bumping {@code generation}, so the stale
 *       holder's later close leaves the gate alone.
 *   <li>Reentry counts a hold only if the same owner's holding {@link #stillHeld() still runs};
 *       the store is not asked.
 * </ul>
 */
final class LocalLock {
    /** What {@link #reenter} found. */
    enum Reentry {
        /** Another owner holds the lock, or nobody does: acquire through the gate. */
        NONE,
        /** The same owner holds it: one more hold was counted. */
        COUNTED,
        /** The same owner's earlier holding ran out unclosed: it was retired and its gate permit is the caller's. */
        INHERITED
    }

    final String name;
    final Semaphore gate = new Semaphore(1, true);
    int users; // guarded by LocalLocks' compute
    String owner;
    int holds;
    String token;
    long fence;
    long holderExpiresNanos; // when the holder's fixed lease runs out; MAX_VALUE with a watchdog
    int generation; // bumped when an abandoned holder is retired
    Watchdog.Renewal renewal;
    Duration lease; // the holder's store lease
    volatile String lostToken; // the token whose watchdog renewal was lost
    volatile String pendingToken; // the token the gate's current owner is acquiring with
    volatile long lastAttemptNanos; // when the gate owner's last store attempt was sent
    DirectHandOff.Handed handed; // a lock moved to a fresh token for the next waiter, not yet taken
    int streak; // direct hand-offs in a row

    LocalLock(String name) {
        this.name = name;
    }

    /** Whether the current holder's lease still runs, as far as this JVM knows. Guarded by this. */
    boolean stillHeld() {
        return System.nanoTime() - holderExpiresNanos < 0 && (token == null || !token.equals(lostToken));
    }

    /** Reentrancy: counts one more hold if {@code caller} holds the lock. Guarded by this. */
    Reentry reenter(String caller) {
        if (!caller.equals(owner)) {
            return Reentry.NONE;
        }
        if (stillHeld()) {
            holds++;
            return Reentry.COUNTED;
        }
        // The same owner's earlier lease ran out (or its renewal was lost) without a close: it holds
        // nothing any more, so this is no reentry. Retire it like an abandoned holder and acquire
        // anew; its gate permit passes to this call.
        retireStaleHolder();
        return Reentry.INHERITED;
    }

    /** Retires a holder whose lease ran out without a close; its later close leaves the gate alone. Guarded by this. */
    void retireStaleHolder() {
        if (renewal != null) {
            renewal.stop();
            renewal = null;
        }
        owner = null;
        holds = 0;
        generation++;
    }

    /**
     * The gate's owner now holds the lock in the store under {@link #pendingToken} with {@code
     * fence}, its lease counted from {@code startedNanos}. Guarded by this.
     */
    void hold(String newOwner, LockOptions options, long startedNanos, long newFence) {
        lease = options.effectiveLease();
        owner = newOwner;
        holds = 1;
        holderExpiresNanos = options.watchdog()
                ? Long.MAX_VALUE
                : startedNanos + options.effectiveLease().toNanos(); // lease ≤ 100 years: no overflow
        token = pendingToken;
        fence = newFence;
    }
}

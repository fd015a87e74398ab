package io.dupguard.lock.spi;

import io.dupguard.internal.Checks;
import io.dupguard.internal.LockOwners;
import io.dupguard.internal.Watchdog;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.lock.LockUnavailableException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * What every store-backed {@link LockProvider} shares; a backend implements the four store
 * operations and, if it can, {@link #awaitRelease}.
 *
 * <p>Acquisition:
 *
 * <ol>
 *   <li>Validate the name and options.
 *   <li>Same owner already holds the lock in this JVM ⇒ count one more hold (reentrancy, L4); the
 *       store is not asked ({@code LocalLock}).
 *   <li>Queue on a fair per-name gate in this JVM, so local waiters are served first come, first
 *       served and only the head of the queue talks to the store (no herd; {@code FairGate}).
 *   <li>A lock handed on directly by the previous holder of this JVM ⇒ hold it ({@code
 *       DirectHandOff}); else ask the store: {@link #tryLock} sets owner token, expiry and the next
 *       fencing token in one atomic step (L2, L5). Refused ⇒ wait for a release notification or a
 *       jittered, growing pause (L6), until the wait time ends.
 *   <li>With a watchdog lease, renew every third of the lease while held ({@link Watchdog}).
 * </ol>
 *
 * <p>Each idea has its own package-private file, with its invariants: {@code LocalLock} (holder
 * and reentrancy), {@code LocalLocks} (the per-name registry), {@code FairGate} (the fair queue),
 * {@code DirectHandOff}, {@code LeaseView} (the {@link Lease} a caller gets, and its close) and
 * {@code LockTokens}. This class holds the backend contract and the acquisition steps above.
 *
 * <p>Release compares the owner token atomically in the store (L3), then opens the gate. Each
 * acquisition has a unique owner token, so a lease that expired and was taken over can never
 * release or extend its successor's lock.
 *
 * <p><b>Direct hand-off</b> (backends that implement {@link #transfer}): when a holder closes while
 * another thread of this JVM waits for the same name, the lock is not released and taken again
 * (two store operations, one after the other) but moved in the store straight to a fresh owner token
 * with a new lease and the next fencing token (one operation), and the next waiter starts holding
 * it. At most {@value #MAX_LOCAL_HANDOFFS} hand-offs follow each other; then the lock is released
 * in the store, so that waiters in other JVMs get their chance. If every local waiter gives up
 * before taking a handed lock, the last one to leave releases it in the store.
 */
public abstract class AbstractLockProvider implements LockProvider {
    /** For subclasses: a backend calls this from its own constructor. */
    protected AbstractLockProvider() {}

    /** Longest lock name accepted. */
    public static final int MAX_NAME_LENGTH = 200;

    /**
     * Most direct hand-offs in a row between threads of this JVM before the lock is released in the
     * store, where waiters of other JVMs can take it.
     */
    public static final int MAX_LOCAL_HANDOFFS = 8;

    final LocalLocks locals = new LocalLocks(this);
    final DirectHandOff handOff = new DirectHandOff(this, locals);

    /**
     * Tries once to take the lock for {@code token} with expiry {@code lease}, atomically.
     *
     * @param name the lock name, already validated; never null
     * @param token the acquiring lease's unique token; never null
     * @param lease the expiry to set, counted from now; positive, never null
     * @return the new fencing token, strictly greater than every earlier one for this name; empty
     *     if another token holds an unexpired lock
     */
    protected abstract OptionalLong tryLock(String name, String token, Duration lease);

    /**
     * Resets the expiry to {@code lease} from now if {@code token} still holds the lock.
     *
     * @param name the lock name; never null
     * @param token the holder's token; never null
     * @param lease the new expiry, counted from now; positive, never null
     * @return true if {@code token} still held the lock and its expiry was reset; false otherwise
     *     (nothing changed)
     */
    protected abstract boolean extend(String name, String token, Duration lease);

    /**
     * Releases the lock if {@code token} still holds it; otherwise does nothing.
     *
     * @param name the lock name; never null
     * @param token the holder's token; never null
     */
    protected abstract void unlock(String name, String token);

    /**
     * Releases as {@link #unlock(String, String)} does, and runs {@code sent} exactly once, as soon
     * as the next acquisition attempt made in this JVM is certain to reach the store after this
     * release; {@code sent} hands the lock to the next waiter of this JVM.
     *
     * <p>The default unlocks and then runs {@code sent}: the next waiter starts after a full round
     * trip. A backend whose commands from this JVM run in the order they were sent (one pipelined
     * connection, as Lettuce's) overrides this to send the release, run {@code sent} at once and
     * only then wait for the answer: the next waiter's attempt is queued behind the release, so a
     * contended hand-off costs one round trip instead of two. {@code sent} must run even when the
     * release fails.
     *
     * @param name the lock name; never null
     * @param token the holder's token; never null
     * @param sent the hand-off to run exactly once, on the calling thread or the backend's; never
     *     null
     */
    protected void unlock(String name, String token, Runnable sent) {
        try {
            unlock(name, token);
        } finally {
            sent.run();
        }
    }

    /**
     * Whether {@code token} holds an unexpired lock.
     *
     * @param name the lock name; never null
     * @param token the token to check; never null
     * @return true if {@code token} holds the lock and it has not expired
     */
    protected abstract boolean isHeld(String name, String token);

    /**
     * Moves the lock that {@code fromToken} holds straight to {@code toToken}, with expiry {@code
     * lease} from now and the next fencing token, in one atomic step, as a release immediately
     * followed by {@code toToken}'s acquisition would. Only called if {@link #transfersLocally()}.
     *
     * @param name the lock name; never null
     * @param fromToken the releasing holder's token; never null
     * @param toToken the next waiter's token; never null
     * @param lease the new holder's expiry, counted from now; positive, never null
     * @return the new fencing token, or empty if {@code fromToken} no longer holds an unexpired lock
     *     (then nothing changed)
     */
    protected OptionalLong transfer(String name, String fromToken, String toToken, Duration lease) {
        throw new UnsupportedOperationException(getClass().getName() + " does not transfer locks");
    }

    /**
     * Whether this backend implements {@link #transfer}, and a contended lock is therefore handed
     * to the next waiter of this JVM with one store operation instead of two.
     *
     * @return true if {@link #transfer} is implemented; false by default
     */
    protected boolean transfersLocally() {
        return false;
    }

    /**
     * Blocks up to {@code nanos} or until the store signals that {@code name} may be free. The
     * default just parks: backends that can notify (Redis pub/sub, ZooKeeper watches) override it.
     *
     * @param name the lock name; never null
     * @param nanos the longest wait, in nanoseconds; positive
     * @throws InterruptedException if the waiting thread is interrupted
     */
    protected void awaitRelease(String name, long nanos) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(nanos);
    }

    /**
     * Whether {@link #awaitRelease} returns early on a release.
     *
     * @return true if {@link #awaitRelease} is woken by releases; false by default (it only parks)
     */
    protected boolean notifiesReleases() {
        return false;
    }

    @Override
    public final Optional<Lease> tryAcquire(String name, LockOptions options) {
        return acquire(name, options, false);
    }

    @Override
    public final Lease acquire(String name, LockOptions options) {
        return acquire(name, options, true).orElseThrow(() -> new LockUnavailableException(name, options.waitTime()));
    }

    private Optional<Lease> acquire(String name, LockOptions options, boolean wait) {
        // Step 1.
        Checks.text(name, MAX_NAME_LENGTH, "lock name");
        String owner = LockOwners.of(options);
        long deadline = System.nanoTime() + (wait ? options.waitTime().toNanos() : 0);

        LocalLock local = locals.enter(name);
        boolean handedOver = false;
        try {
            // Step 2.
            LocalLock.Reentry reentry;
            synchronized (local) {
                reentry = local.reenter(owner);
                if (reentry == LocalLock.Reentry.COUNTED) {
                    handedOver = true;
                    return Optional.of(new LeaseView(this, local));
                }
            }
            // Step 3.
            if (reentry != LocalLock.Reentry.INHERITED && !FairGate.enter(local, wait, deadline)) {
                return Optional.empty();
            }
            try {
                // Step 4.
                OptionalLong fence = OptionalLong.empty();
                long started = 0;
                DirectHandOff.Handed handed = handOff.take(local, options);
                if (handed != null) {
                    fence = OptionalLong.of(handed.fence());
                    started = handed.leaseStartNanos();
                }
                if (fence.isEmpty()) {
                    fence = acquireRemote(local, options, wait, deadline);
                    started = local.lastAttemptNanos;
                }
                if (fence.isEmpty()) {
                    return Optional.empty();
                }
                LeaseView view;
                synchronized (local) {
                    local.hold(owner, options, started, fence.getAsLong());
                    view = new LeaseView(this, local);
                    if (options.watchdog()) {
                        // Step 5.
                        Duration lease = options.effectiveLease();
                        String token = local.token;
                        local.renewal = Watchdog.shared()
                                .start(lease, started, () -> extend(name, token, lease), () -> {
                                    synchronized (local) {
                                        // The callback runs on a renewal thread, possibly late: only
                                        // the holding it was started for is marked lost.
                                        if (token.equals(local.token)) {
                                            local.lostToken = token;
                                        }
                                    }
                                    options.onLeaseLost().accept(view);
                                });
                    }
                }
                handedOver = true;
                return Optional.of(view);
            } finally {
                if (!handedOver) {
                    local.gate.release();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            if (!handedOver) {
                locals.leave(name);
            }
        }
    }

    /** Step 4 in the store: {@link #tryLock} until it succeeds or the wait ends. */
    private OptionalLong acquireRemote(LocalLock local, LockOptions options, boolean wait, long deadline)
            throws InterruptedException {
        String name = local.name;
        String token = LockTokens.next();
        local.pendingToken = token;
        long pause = options.retryInterval().toNanos();
        long maxPause = options.maxRetryInterval().toNanos();
        while (true) {
            local.lastAttemptNanos = System.nanoTime(); // the lease counts from before the request
            OptionalLong fence = tryLock(name, token, options.effectiveLease());
            if (fence.isPresent() || !wait) {
                return fence;
            }
            long left = FairGate.remaining(deadline);
            if (left <= 0) {
                return OptionalLong.empty();
            }
            // Notifying stores wake us on release; the cap covers locks that expire instead.
            long jittered = notifiesReleases()
                    ? maxPause
                    : pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
            awaitRelease(name, Math.min(left, jittered));
            pause = Math.min(pause * 2, maxPause);
        }
    }

    /** {@link #unlock(String, String)}, logging instead of throwing: the lock then expires. */
    void unlockQuietly(String name, String token) {
        try {
            unlock(name, token);
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(AbstractLockProvider.class)
                    .debug("could not release lock '{}'; it will expire", name, e);
        }
    }
}

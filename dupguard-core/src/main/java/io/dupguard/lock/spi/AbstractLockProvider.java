package io.dupguard.lock.spi;

import io.dupguard.internal.Checks;
import io.dupguard.internal.LockOwners;
import io.dupguard.internal.Watchdog;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.lock.LockUnavailableException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every store-backed {@link LockProvider} shares; a backend implements the four store
 * operations and, if it can, {@link #awaitRelease}.
 *
 * <p>Acquisition:
 *
 * <ol>
 *   <li>Validate the name and options.
 *   <li>Same owner already holds the lock in this JVM ⇒ count one more hold (reentrancy, L4); the
 *       store is not asked.
 *   <li>Queue on a fair per-name gate in this JVM, so local waiters are served first come, first
 *       served and only the head of the queue talks to the store (fair hand-off, no herd).
 *   <li>Ask the store: {@link #tryLock} sets owner token, expiry and the next fencing token in one
 *       atomic step (L2, L5). Refused ⇒ wait for a release notification or a jittered, growing
 *       pause (L6), until the wait time ends.
 *   <li>With a watchdog lease, renew every third of the lease while held.
 * </ol>
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

    private static final String TOKEN_PREFIX = randomPrefix();
    private static final AtomicLong TOKEN_SEQUENCE = new AtomicLong();
    private static final long STEAL_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /**
     * Most direct hand-offs in a row between threads of this JVM before the lock is released in the
     * store, where waiters of other JVMs can take it.
     */
    public static final int MAX_LOCAL_HANDOFFS = 8;

    private final ConcurrentHashMap<String, LocalLock> locals = new ConcurrentHashMap<>();

    /**
     * Tries once to take the lock for {@code token} with expiry {@code lease}, atomically.
     *
     * @return the new fencing token, strictly greater than every earlier one for this name; empty
     *     if another token holds an unexpired lock
     */
    protected abstract OptionalLong tryLock(String name, String token, Duration lease);

    /** Resets the expiry to {@code lease} from now if {@code token} still holds the lock. */
    protected abstract boolean extend(String name, String token, Duration lease);

    /** Releases the lock if {@code token} still holds it; otherwise does nothing. */
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
     */
    protected void unlock(String name, String token, Runnable sent) {
        try {
            unlock(name, token);
        } finally {
            sent.run();
        }
    }

    /** Whether {@code token} holds an unexpired lock. */
    protected abstract boolean isHeld(String name, String token);

    /**
     * Moves the lock that {@code fromToken} holds straight to {@code toToken}, with expiry {@code
     * lease} from now and the next fencing token, in one atomic step, as a release immediately
     * followed by {@code toToken}'s acquisition would. Only called if {@link #transfersLocally()}.
     *
     * @return the new fencing token, or empty if {@code fromToken} no longer holds an unexpired lock
     *     (then nothing changed)
     */
    protected OptionalLong transfer(String name, String fromToken, String toToken, Duration lease) {
        throw new UnsupportedOperationException(getClass().getName() + " does not transfer locks");
    }

    /**
     * Whether this backend implements {@link #transfer}, and a contended lock is therefore handed
     * to the next waiter of this JVM with one store operation instead of two.
     */
    protected boolean transfersLocally() {
        return false;
    }

    /**
     * Blocks up to {@code nanos} or until the store signals that {@code name} may be free. The
     * default just parks: backends that can notify (Redis pub/sub, ZooKeeper watches) override it.
     */
    protected void awaitRelease(String name, long nanos) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(nanos);
    }

    /** Whether {@link #awaitRelease} returns early on a release. */
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
        Checks.text(name, MAX_NAME_LENGTH, "lock name");
        String owner = LockOwners.of(options);
        long deadline = System.nanoTime() + (wait ? options.waitTime().toNanos() : 0);

        LocalLock local = enter(name);
        boolean handedOver = false;
        try {
            boolean gateInherited = false;
            synchronized (local) {
                if (owner.equals(local.owner)) {
                    if (local.stillHeld()) {
                        local.holds++;
                        handedOver = true;
                        return Optional.of(new LeaseView(local));
                    }
                    // The same owner's earlier lease ran out (or its renewal was lost) without a
                    // close: it holds nothing any more, so this is no reentry. Retire it like an
                    // abandoned holder and acquire anew; its gate permit passes to this call.
                    retireStaleHolder(local);
                    gateInherited = true;
                }
            }
            if (!gateInherited && !acquireGate(local, wait, deadline)) {
                return Optional.empty();
            }
            try {
                OptionalLong fence = OptionalLong.empty();
                long started = 0;
                Handed handed = takeHanded(local, options);
                if (handed != null) {
                    fence = OptionalLong.of(handed.fence);
                    started = handed.leaseStartNanos;
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
                    local.lease = options.effectiveLease();
                    local.owner = owner;
                    local.holds = 1;
                    local.holderExpiresNanos = options.watchdog()
                            ? Long.MAX_VALUE
                            : started + options.effectiveLease().toNanos(); // lease ≤ 100 years: no overflow
                    local.token = local.pendingToken;
                    local.fence = fence.getAsLong();
                    view = new LeaseView(local);
                    if (options.watchdog()) {
                        Duration lease = options.effectiveLease();
                        String token = local.token;
                        local.renewal = Watchdog.shared()
                                .start(lease, started, () -> extend(name, token, lease), () -> {
                                    local.lostToken = token;
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
                leave(name);
            }
        }
    }

    /**
     * Takes this JVM's gate for the name. A holder whose fixed lease ran out without being closed
     * (a stuck or abandoned thread) would keep it forever, so a waiter that finds such a holder
     * takes the gate over; the abandoned lease's later close then leaves the gate alone.
     */
    private boolean acquireGate(LocalLock local, boolean wait, long deadline) throws InterruptedException {
        while (true) {
            long slice = Math.min(remaining(deadline), STEAL_CHECK_NANOS);
            if (wait ? local.gate.tryAcquire(slice, TimeUnit.NANOSECONDS) : local.gate.tryAcquire()) {
                return true;
            }
            synchronized (local) {
                if (local.owner != null && !local.stillHeld()) {
                    retireStaleHolder(local);
                    return true; // the abandoned holder's permit is now ours
                }
            }
            if (!wait || remaining(deadline) <= 0) {
                return false;
            }
        }
    }

    /** Retires a holder whose lease ran out without a close; its later close leaves the gate alone. */
    private static void retireStaleHolder(LocalLock local) {
        if (local.renewal != null) {
            local.renewal.stop();
            local.renewal = null;
        }
        local.owner = null;
        local.holds = 0;
        local.generation++;
    }

    /**
     * The lock a closing holder of this JVM moved to a fresh token for the next waiter, now this
     * caller's; null if there is none, or if it ran out before this caller came (then the usual
     * acquisition follows). A lease different from this caller's is reset to this caller's.
     */
    private Handed takeHanded(LocalLock local, LockOptions options) {
        Handed h;
        synchronized (local) {
            h = local.handed;
            local.handed = null;
        }
        if (h == null) {
            return null;
        }
        local.pendingToken = h.token;
        Duration lease = options.effectiveLease();
        long leaseNanos = Checks.saturatedNanos(lease);
        if (h.lease.equals(lease) && System.nanoTime() - h.leaseStartNanos < leaseNanos / 2) {
            return h;
        }
        long resetAt = System.nanoTime();
        boolean extended;
        try {
            extended = extend(local.name, h.token, lease);
        } catch (RuntimeException e) {
            unlockQuietly(local.name, h.token);
            throw e;
        }
        return extended ? new Handed(h.token, h.fence, resetAt, lease) : null;
    }

    /**
     * Closing the outermost hold while another thread of this JVM waits for the name: moves the
     * lock in the store to a fresh token for that waiter and opens the gate. False if the store
     * lock cannot be handed (not a transferring backend, nobody waiting, the hand-off streak is
     * long enough, or this holder's lease ran out): then the caller releases as usual.
     */
    private boolean handOffDirectly(LocalLock local, String token) {
        if (!transfersLocally()) {
            return false;
        }
        Duration lease;
        synchronized (local) {
            if (local.streak >= MAX_LOCAL_HANDOFFS || !local.gate.hasQueuedThreads()) {
                local.streak = 0;
                return false;
            }
            lease = local.lease;
        }
        String next = newToken();
        long sentAt = System.nanoTime();
        OptionalLong fence;
        try {
            fence = transfer(local.name, token, next, lease);
        } catch (RuntimeException e) {
            // Unknown whether it moved: release under both tokens (each a no-op if not the holder).
            unlockQuietly(local.name, next);
            return false;
        }
        if (fence.isEmpty()) {
            return false;
        }
        synchronized (local) {
            local.handed = new Handed(next, fence.getAsLong(), sentAt, lease);
            local.streak++;
        }
        new HandOff(local).run();
        return true;
    }

    private void unlockQuietly(String name, String token) {
        try {
            unlock(name, token);
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(AbstractLockProvider.class)
                    .debug("could not release lock '{}'; it will expire", name, e);
        }
    }

    private static String newToken() {
        return TOKEN_PREFIX + TOKEN_SEQUENCE.incrementAndGet();
    }

    private OptionalLong acquireRemote(LocalLock local, LockOptions options, boolean wait, long deadline)
            throws InterruptedException {
        String name = local.name;
        String token = newToken();
        local.pendingToken = token;
        long pause = options.retryInterval().toNanos();
        long maxPause = options.maxRetryInterval().toNanos();
        while (true) {
            local.lastAttemptNanos = System.nanoTime(); // the lease counts from before the request
            OptionalLong fence = tryLock(name, token, options.effectiveLease());
            if (fence.isPresent() || !wait) {
                return fence;
            }
            long left = remaining(deadline);
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

    private LocalLock enter(String name) {
        return locals.compute(name, (k, v) -> {
            LocalLock l = v == null ? new LocalLock(name) : v;
            l.users++;
            return l;
        });
    }

    private void leave(String name) {
        LocalLock local = locals.get(name);
        if (locals.computeIfPresent(name, (k, v) -> --v.users == 0 ? null : v) == null && local != null) {
            // The last user left: a lock handed to a waiter that then gave up is released here.
            Handed orphan;
            synchronized (local) {
                orphan = local.handed;
                local.handed = null;
            }
            if (orphan != null) {
                unlockQuietly(name, orphan.token);
            }
        }
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    private static String randomPrefix() {
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random) + "-";
    }

    /** This JVM's view of one lock name: queue, holder and hold count. */
    private static final class LocalLock {
        final String name;
        final Semaphore gate = new Semaphore(1, true);
        int users; // guarded by the map's compute
        String owner; // guarded by this
        int holds;
        String token;
        volatile String pendingToken;
        long fence;
        long holderExpiresNanos; // when the holder's fixed lease runs out; MAX_VALUE with a watchdog
        volatile String lostToken; // the token whose watchdog renewal was lost
        volatile long lastAttemptNanos; // when the last tryLock was sent
        int generation; // bumped when an abandoned holder's gate is taken over
        Watchdog.Renewal renewal;
        Duration lease; // the holder's store lease
        Handed handed; // a lock moved to a fresh token for the next waiter, not yet taken
        int streak; // direct hand-offs in a row

        LocalLock(String name) {
            this.name = name;
        }

        /** Whether the current holder's lease still runs, as far as this JVM knows. Guarded by this. */
        boolean stillHeld() {
            return System.nanoTime() - holderExpiresNanos < 0 && (token == null || !token.equals(lostToken));
        }
    }

    /** A lock held in the store under {@code token} since {@code leaseStartNanos}, for the next waiter. */
    private record Handed(String token, long fence, long leaseStartNanos, Duration lease) {}

    /** Opens this JVM's gate to the next waiter, once. Used by the releasing thread only. */
    private final class HandOff implements Runnable {
        private final LocalLock local;
        private boolean done;

        HandOff(LocalLock local) {
            this.local = local;
        }

        @Override
        public void run() {
            if (!done) {
                done = true;
                local.gate.release();
                leave(local.name);
            }
        }
    }

    /** One acquisition (outer or reentrant) of a held lock. */
    private final class LeaseView implements Lease {
        private final LocalLock local;
        private final String token;
        private final long fence;
        private final int generation;
        private boolean closed; // guarded by local

        LeaseView(LocalLock local) {
            this.local = local;
            synchronized (local) {
                this.token = local.token;
                this.fence = local.fence;
                this.generation = local.generation;
            }
        }

        @Override
        public String name() {
            return local.name;
        }

        @Override
        public long fencingToken() {
            return fence;
        }

        @Override
        public boolean extend(Duration leaseTime) {
            Checks.between(leaseTime, LockOptions.MIN_LEASE, LockOptions.MAX_DURATION, "leaseTime");
            synchronized (local) {
                if (closed || token.equals(local.lostToken)) {
                    return false;
                }
            }
            long sent = System.nanoTime();
            boolean extended = AbstractLockProvider.this.extend(local.name, token, leaseTime);
            if (extended) {
                synchronized (local) {
                    if (local.generation == generation && local.holderExpiresNanos != Long.MAX_VALUE) {
                        local.holderExpiresNanos = sent + leaseTime.toNanos(); // the fixed lease moved
                    }
                }
            }
            return extended;
        }

        @Override
        public boolean isHeld() {
            synchronized (local) {
                if (closed || token.equals(local.lostToken)) {
                    return false; // a lost watchdog lease is not asked about again
                }
            }
            return AbstractLockProvider.this.isHeld(local.name, token);
        }

        @Override
        public void close() {
            Watchdog.Renewal renewal;
            boolean inner;
            boolean abandoned;
            synchronized (local) {
                if (closed) {
                    return;
                }
                closed = true;
                abandoned = local.generation != generation;
                inner = !abandoned && --local.holds > 0;
                if (inner || abandoned) {
                    renewal = null;
                } else {
                    local.owner = null;
                    renewal = local.renewal;
                    local.renewal = null;
                }
            }
            if (inner) {
                leave(local.name); // an inner hold of a reentrant lock: the outer one still holds it
                return;
            }
            if (abandoned) {
                // Our gate was taken over after our lease ran out; only tidy the store (a no-op
                // compare-and-delete unless nobody took the lock since).
                try {
                    unlock(local.name, token);
                } catch (RuntimeException e) {
                    org.slf4j.LoggerFactory.getLogger(AbstractLockProvider.class)
                            .debug("could not release abandoned lock '{}'", local.name, e);
                } finally {
                    leave(local.name);
                }
                return;
            }
            if (renewal != null) {
                renewal.stop();
            }
            if (handOffDirectly(local, token)) {
                return;
            }
            HandOff handOff = new HandOff(local);
            try {
                unlock(local.name, token, handOff);
            } catch (RuntimeException e) {
                // The lease expires on its own; the caller's work already finished.
                org.slf4j.LoggerFactory.getLogger(AbstractLockProvider.class)
                        .warn("could not release lock '{}'; it will expire", local.name, e);
            } finally {
                handOff.run(); // no-op if the backend already ran it
            }
        }

        @Override
        public String toString() {
            return "Lease[" + local.name + ", fence=" + fence + "]";
        }
    }
}

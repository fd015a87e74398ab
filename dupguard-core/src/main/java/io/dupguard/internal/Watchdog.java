package io.dupguard.internal;

import io.dupguard.ReadOnlyStoreException;
import io.dupguard.StoreUnavailableException;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews leases of long-running work from one shared daemon thread.
 *
 * <p><b>Cadence and failures.</b> A lease of length {@code L} is renewed every {@code L/3}. A
 * renewal that <em>fails</em> (the store threw: refused connection, timeout) does not end renewal:
 * it is retried after {@code max(TICK, L/24)}, doubling up to {@code L/6}, for as long as the lease
 * can still be extended in time, i.e. until {@code L} has passed since the start of the last renewal
 * that succeeded (the store counts the lease from when it received that renewal, which is later).
 * With a failure at the regular renewal point, about {@code 2L/3} of consecutive failures fit in one
 * lease (for {@code L} = 30 s: retries at +1.25, +2.5, +5, +5, +5 s …). Only two things end a lease:
 *
 * <ul>
 *   <li>the store answers that the lease is no longer this holder's (renew returned false: it
 *       expired and someone else took it), or
 *   <li>{@code L} has passed since the start of the last successful renewal (every attempt failed,
 *       or one attempt hangs that long) — from then on another caller may take over.
 * </ul>
 *
 * <p>Either way {@link Renewal#lost()} turns true and {@code onLost} runs exactly once, on a renewal
 * thread, never on the thread that judges every lease: a callback that blocks or throws holds up
 * only itself, and a lease that runs out while another holder's callback still runs is reported on
 * time. A failure while one lease is judged is logged, and the others are still judged.
 *
 * <p><b>Cost.</b> Almost all work finishes long before its first renewal is due, so registering
 * must cost next to nothing: each thread owns a slot, registered once, and a call registers its
 * renewal with one compare-and-set on its own slot — no shared map, no timer. Nested registrations
 * on one thread, or a slot still busy, fall back to a shared set. The thread scans every {@link
 * #TICK}; leases shorter than {@link #MIN_LEASE} are refused by the configurations because they
 * cannot be renewed in time. Due renewals run on a pool of daemon threads, so one store that blocks
 * (a command timeout) does not delay every other lease in the JVM.
 */
public final class Watchdog {
    /** Scan period. */
    public static final Duration TICK = Duration.ofMillis(20);

    /**
     * Shortest lease the watchdog can keep: renewal every 100 ms on a 20 ms tick, with room for
     * retries after a failed renewal.
     */
    public static final Duration MIN_LEASE = Duration.ofMillis(300);

    private static final long TICK_NANOS = TICK.toNanos();
    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);
    private static final Watchdog SHARED = new Watchdog();

    private final Set<Slot> slots = ConcurrentHashMap.newKeySet();
    private final Set<Renewal> overflow = ConcurrentHashMap.newKeySet();
    private final ThreadLocal<Slot> ownSlot = ThreadLocal.withInitial(this::newSlot);
    private final ExecutorService renewers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "dupguard-renewal");
        t.setDaemon(true);
        return t;
    });
    private volatile Thread thread;

    /** One thread's registration place; dropped when its thread is gone. */
    private static final class Slot extends AtomicReference<Renewal> {
        private static final long serialVersionUID = 1L;
        final transient WeakReference<Thread> owner = new WeakReference<>(Thread.currentThread());
    }

    private Watchdog() {}

    /** The JVM-wide instance. */
    public static Watchdog shared() {
        return SHARED;
    }

    private Slot newSlot() {
        Slot s = new Slot();
        slots.add(s);
        return s;
    }

    /**
     * Keeps a lease of length {@code lease}, granted by a request sent at {@code leaseStartNanos}
     * ({@link System#nanoTime()}), alive by calling {@code renew} (which extends it by {@code lease}
     * from when the store receives it) until {@link Renewal#stop()}. See the class comment for the
     * cadence; {@code onLost} runs once if the lease ends.
     */
    public Renewal start(Duration lease, long leaseStartNanos, BooleanSupplier renew, Runnable onLost) {
        Slot slot = ownSlot.get();
        Renewal r = new Renewal(Checks.saturatedNanos(lease), leaseStartNanos, renew, onLost);
        if (slot.compareAndSet(null, r)) {
            r.slot = slot;
        } else {
            overflow.add(r);
        }
        ensureThread();
        return r;
    }

    private void ensureThread() {
        if (thread == null) {
            synchronized (this) {
                if (thread == null) {
                    Thread t = new Thread(this::loop, "dupguard-watchdog");
                    t.setDaemon(true);
                    t.start();
                    thread = t;
                }
            }
        }
    }

    private void loop() {
        while (true) {
            LockSupport.parkNanos(TICK_NANOS);
            try {
                scan(System.nanoTime());
            } catch (Throwable t) { // the log itself failed (considerSafely logs the rest): go on regardless
                // nothing left to report it with; the next tick judges every lease again
            }
        }
    }

    private void scan(long now) {
        for (Slot slot : slots) {
            Renewal r = slot.get();
            if (r != null) {
                considerSafely(r, now);
            } else if (slot.owner.get() == null) {
                slots.remove(slot);
            }
        }
        for (Renewal r : overflow) {
            considerSafely(r, now);
        }
    }

    /** {@link #consider}, whose failure must not end the one thread that watches every lease. */
    private void considerSafely(Renewal r, long now) {
        try {
            consider(r, now);
        } catch (Throwable t) { // one lease's failure must not end the thread that judges them all
            LOG.error("watchdog could not handle a lease; it goes on with the others", t);
        }
    }

    private void consider(Renewal r, long now) {
        if (r.stopped) {
            return;
        }
        if (now - r.validUntil >= 0) {
            // Also when an attempt hangs. The callback runs on a renewal thread: the holder's code
            // must not hold up this thread, which judges every lease in the JVM.
            if (r.markLost("no renewal succeeded within the lease")) {
                try {
                    renewers.execute(r::notifyLost);
                } catch (RuntimeException | OutOfMemoryError noThread) { // no thread to be had: tell here
                    r.notifyLost();
                }
            }
            return;
        }
        if (now - r.due >= 0 && r.running.compareAndSet(false, true)) {
            renewers.execute(() -> {
                try {
                    r.fire();
                } finally {
                    r.running.set(false);
                }
            });
        }
    }

    /**
     * Runs {@code attempt} until it succeeds, retrying a {@link StoreUnavailableException} or a
     * {@link ReadOnlyStoreException} with the renewals' backoff ({@code max(TICK, L/24)} doubling up
     * to {@code L/6}) for as long as the lease still holds (until {@code validUntilNanos}, a {@link
     * System#nanoTime()} value): a final write of the holder (a completion) is not given up on after
     * one blip while no one else can have taken the lease over. A read-only refusal is what a
     * failover shows on a connection still open to the demoted primary; the JDBC stores drop such a
     * connection, so the next attempt takes a new one from the pool, which reaches the new primary
     * once the failover has moved the address. Any other exception, and the last failure, propagate.
     *
     * @throws StoreUnavailableException when the store stayed unreachable until the lease ran out
     * @throws ReadOnlyStoreException when the store still refused the write as read-only when the
     *     lease ran out
     */
    public static void retryWithinLease(long validUntilNanos, Duration lease, Runnable attempt) {
        long leaseNanos = lease.toNanos();
        long max = maxRetryNanos(leaseNanos);
        long pause = firstRetryNanos(leaseNanos);
        int failures = 0;
        while (true) {
            try {
                attempt.run();
                if (failures > 0) {
                    LOG.info("final write succeeded after {} failed attempt(s)", failures);
                }
                return;
            } catch (StoreUnavailableException | ReadOnlyStoreException e) {
                failures++;
                long left = validUntilNanos - System.nanoTime();
                if (left <= TICK_NANOS) {
                    throw e;
                }
                long wait = Math.min(pause, left - TICK_NANOS);
                LOG.warn(
                        "final write failed ({} attempt(s)); retrying in {} ms, {} ms of the lease left: {}",
                        failures,
                        wait / 1_000_000,
                        left / 1_000_000,
                        e.toString());
                LockSupport.parkNanos(wait);
                pause = Math.min(pause * 2, max);
            }
        }
    }

    /** The first pause after a failed renewal or final write: {@code max(TICK, L/24)}. */
    private static long firstRetryNanos(long leaseNanos) {
        return Math.max(TICK_NANOS, leaseNanos / 24);
    }

    /** The longest pause between retries: {@code L/6} (at least the first pause). */
    private static long maxRetryNanos(long leaseNanos) {
        return Math.max(firstRetryNanos(leaseNanos), leaseNanos / 6);
    }

    /** One registered renewal. */
    public final class Renewal {
        private final long leaseNanos;
        private final long intervalNanos;
        private final long firstRetryNanos;
        private final long maxRetryNanos;
        private final BooleanSupplier renew;
        private final Runnable onLost;
        private final AtomicBoolean running = new AtomicBoolean();
        private final AtomicBoolean lostOnce = new AtomicBoolean();
        private volatile Slot slot;
        private volatile long due;
        private volatile long validUntil;
        private volatile int failures;
        private volatile boolean stopped;

        // nanoTime values are compared by subtraction, which stays right across wrap-around as long as
        // leases are below 2^62 ns (the configurations cap them at 100 years).
        private Renewal(long leaseNanos, long leaseStartNanos, BooleanSupplier renew, Runnable onLost) {
            this.leaseNanos = leaseNanos;
            this.intervalNanos = leaseNanos / 3; // not Duration.dividedBy, which goes through BigDecimal
            this.firstRetryNanos = Watchdog.firstRetryNanos(leaseNanos);
            this.maxRetryNanos = Watchdog.maxRetryNanos(leaseNanos);
            this.renew = renew;
            this.onLost = onLost;
            this.validUntil = leaseStartNanos + leaseNanos;
            this.due = leaseStartNanos + intervalNanos;
        }

        private void fire() {
            long sent = System.nanoTime();
            boolean ok;
            try {
                ok = renew.getAsBoolean();
            } catch (Throwable e) { // an Error, or a checked exception thrown sneakily: retried with the backoff too
                onFailure(sent, e);
                return;
            }
            if (stopped) {
                return;
            }
            if (ok) {
                if (failures > 0) {
                    LOG.info("lease renewal succeeded again after {} failed attempt(s)", failures);
                }
                failures = 0;
                validUntil = sent + leaseNanos;
                due = sent + intervalNanos;
            } else {
                lose("the store no longer records this holder");
            }
        }

        private void onFailure(long sent, Throwable e) {
            if (stopped) {
                return;
            }
            int n = ++failures;
            long now = System.nanoTime();
            long left = validUntil - now;
            if (left <= 0) {
                LOG.warn("lease renewal failed ({} attempt(s)) and the lease has run out", n, e);
                lose("every renewal within the lease failed");
                return;
            }
            long backoff = n >= 20 ? maxRetryNanos : Math.min(maxRetryNanos, firstRetryNanos << (n - 1));
            // One more try just before the lease would run out beats none.
            long next = Math.min(sent + backoff, validUntil - TICK_NANOS);
            due = next - now < 0 ? now : next;
            if (n == 1) {
                LOG.warn("lease renewal failed; retrying within the remaining {} ms of the lease", left / 1_000_000, e);
            } else {
                LOG.warn(
                        "lease renewal failed again ({} attempts); {} ms of the lease left: {}",
                        n,
                        left / 1_000_000,
                        e.toString());
            }
        }

        /** Marks the lease lost and runs the callback on this (a renewal) thread. */
        private void lose(String why) {
            if (markLost(why)) {
                notifyLost();
            }
        }

        /** Whether this call ended the lease (stopped and not lost before); {@link #lost()} is true after. */
        private boolean markLost(String why) {
            if (stopped || !lostOnce.compareAndSet(false, true)) {
                return false;
            }
            LOG.warn("lease lost: {}", why);
            stop();
            return true;
        }

        private void notifyLost() {
            try {
                onLost.run();
            } catch (Throwable t) { // the holder's callback must not end a renewal thread
                LOG.warn("lease-lost callback threw", t);
            }
        }

        /**
         * Whether the lease ended while registered: a renewal was refused or none succeeded in time.
         * It turns true just before the lease-lost callback starts, which runs on a renewal thread.
         */
        public boolean lost() {
            return lostOnce.get();
        }

        /**
         * The {@link System#nanoTime()} until which the lease holds for all this renewal knows: the
         * last successful renewal's send time (or the lease start) plus the lease.
         */
        public long validUntilNanos() {
            return validUntil;
        }

        /** Consecutive failed renewal attempts so far (0 after a success). */
        public int failures() {
            return failures;
        }

        /** Stops renewing. Idempotent; may be called from any thread. */
        public void stop() {
            stopped = true;
            Slot s = slot;
            if (s == null || !s.compareAndSet(this, null)) {
                overflow.remove(this);
            }
        }
    }
}

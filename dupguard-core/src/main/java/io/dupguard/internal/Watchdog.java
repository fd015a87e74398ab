package io.dupguard.internal;

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
 * <p>Almost all work finishes long before its first renewal is due, so registering must cost next
 * to nothing: each thread owns a slot, registered once, and a call registers its renewal with one
 * compare-and-set on its own slot — no shared map, no timer. Nested registrations on one thread, or
 * a slot still busy, fall back to a shared set. The thread scans every {@link #TICK}, so leases
 * shorter than about three ticks cannot be renewed in time. Due renewals run on a pool of daemon
 * threads, so one store that blocks (a command timeout) does not delay every other lease in the JVM.
 */
public final class Watchdog {
    /** Scan period. */
    public static final Duration TICK = Duration.ofMillis(20);

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
     * Calls {@code renew} every {@code interval} until {@link Renewal#stop()} or until {@code renew}
     * returns false or throws (the lease is then considered lost and {@code onLost} runs).
     */
    public Renewal start(Duration interval, BooleanSupplier renew, Runnable onLost) {
        Slot slot = ownSlot.get();
        Renewal r = new Renewal(interval.toNanos(), renew, onLost);
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
        long tick = TICK.toNanos();
        while (true) {
            LockSupport.parkNanos(tick);
            long now = System.nanoTime();
            for (Slot slot : slots) {
                Renewal r = slot.get();
                if (r != null) {
                    consider(r, now);
                } else if (slot.owner.get() == null) {
                    slots.remove(slot);
                }
            }
            for (Renewal r : overflow) {
                consider(r, now);
            }
        }
    }

    private void consider(Renewal r, long now) {
        if (!r.stopped && now - r.due >= 0 && r.running.compareAndSet(false, true)) {
            renewers.execute(() -> {
                try {
                    r.fire(now);
                } finally {
                    r.running.set(false);
                }
            });
        }
    }

    /** One registered renewal. */
    public final class Renewal {
        private final long intervalNanos;
        private final BooleanSupplier renew;
        private final Runnable onLost;
        private final AtomicBoolean running = new AtomicBoolean();
        private volatile Slot slot;
        private volatile long due;
        private volatile boolean lost;
        private volatile boolean stopped;

        private Renewal(long intervalNanos, BooleanSupplier renew, Runnable onLost) {
            this.intervalNanos = intervalNanos;
            this.renew = renew;
            this.onLost = onLost;
            this.due = System.nanoTime() + intervalNanos;
        }

        private void fire(long now) {
            boolean ok;
            try {
                ok = renew.getAsBoolean();
            } catch (RuntimeException e) {
                LOG.warn("lease renewal failed; treating the lease as lost", e);
                ok = false;
            }
            if (stopped) {
                return;
            }
            if (ok) {
                due = now + intervalNanos;
            } else {
                lost = true;
                stop();
                onLost.run();
            }
        }

        /** Whether a renewal was refused. */
        public boolean lost() {
            return lost;
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

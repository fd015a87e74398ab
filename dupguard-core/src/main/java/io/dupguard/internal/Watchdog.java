package io.dupguard.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews leases of long-running work from one shared daemon thread.
 *
 * <p>Registration is a set insert, not a scheduled task, because almost all work finishes long
 * before its first renewal is due and scheduling + cancelling a timer per call costs more than the
 * call itself on fast stores. The thread scans every {@link #TICK}, so leases shorter than about
 * three ticks cannot be renewed in time. Due renewals run on a pool of daemon threads, so one store
 * that blocks (a command timeout) does not delay the renewals of every other lease in the JVM.
 */
public final class Watchdog {
    /** Scan period. */
    public static final Duration TICK = Duration.ofMillis(20);

    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);
    private static final Watchdog SHARED = new Watchdog();

    private final Set<Renewal> renewals = ConcurrentHashMap.newKeySet();
    private final ExecutorService renewers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "dupguard-renewal");
        t.setDaemon(true);
        return t;
    });
    private volatile Thread thread;

    private Watchdog() {}

    /** The JVM-wide instance. */
    public static Watchdog shared() {
        return SHARED;
    }

    /**
     * Calls {@code renew} every {@code interval} until {@link Renewal#stop()} or until {@code renew}
     * returns false or throws (the lease is then considered lost).
     */
    public Renewal start(Duration interval, BooleanSupplier renew, Runnable onLost) {
        Renewal r = new Renewal(interval.toNanos(), renew, onLost);
        renewals.add(r);
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
            for (Renewal r : renewals) {
                if (now - r.due >= 0 && r.running.compareAndSet(false, true)) {
                    renewers.execute(() -> {
                        try {
                            r.fire(now);
                        } finally {
                            r.running.set(false);
                        }
                    });
                }
            }
        }
    }

    /** One registered renewal. */
    public final class Renewal {
        private final long intervalNanos;
        private final BooleanSupplier renew;
        private final Runnable onLost;
        private volatile long due;
        private volatile boolean lost;
        private final AtomicBoolean running = new AtomicBoolean();

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
            if (!renewals.contains(this)) {
                return;
            }
            if (ok) {
                due = now + intervalNanos;
            } else {
                lost = true;
                renewals.remove(this);
                onLost.run();
            }
        }

        /** Whether a renewal was refused. */
        public boolean lost() {
            return lost;
        }

        /** Stops renewing. Idempotent. */
        public void stop() {
            renewals.remove(this);
        }
    }
}

package io.dupguard.retry;

import io.dupguard.internal.Checks;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker side of a {@link RetryLog}: poller threads ({@link RetryConfig#pollers()}) claim due
 * tasks in batches and queue them for the handler pool; a completion thread writes successes in
 * batches ({@link Completions}); one housekeeping thread renews the leases of running tasks and
 * purges old SUCCEEDED ones in bounded batches.
 *
 * <p>At most handler threads + one batch per poller are claimed and unfinished. A poller claims
 * when a whole batch fits in that room, or when fewer tasks wait than there are handler threads (so
 * the handlers never run dry): under load every claim takes a full batch, one statement and one
 * commit for {@link RetryConfig#batchSize()} tasks, instead of a claim for each task that finishes.
 *
 * <p>The poller sleeps until the poll interval passes or it is woken: by an enqueue in this JVM or a
 * notification from the store. A wake-up may arrive before the enqueuing transaction commits, so for
 * a short while after one the poller polls at a short interval. Failed polls back off exponentially
 * up to {@link RetryConfig#maxPollBackoff()}, then polling resumes.
 */
final class RetryWorkers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RetryLog.class);
    private static final long BURST_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long BURST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final AtomicInteger GROUPS = new AtomicInteger();

    private final RetryStore store;
    private final RetryConfig config;
    private final TaskRunner runner;
    private final int room;
    private final Object roomLock = new Object();
    private int outstanding; // claimed or being claimed, not finished; guarded by roomLock
    private int queued; // claimed, waiting for a handler thread; guarded by roomLock
    private final Set<ClaimedTask> running = ConcurrentHashMap.newKeySet();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    private boolean signalled;
    private volatile long burstUntil;
    private volatile boolean stopping;
    private ExecutorService handlers;
    private ScheduledExecutorService housekeeping;
    private final List<Thread> pollers = new java.util.ArrayList<>();
    private AutoCloseable subscription;
    private Completions completions;

    RetryWorkers(RetryStore store, RetryConfig config, TaskRunner runner) {
        this.store = store;
        this.config = config;
        this.runner = runner;
        // Up to a batch per poller is claimed ahead of the handler threads, so the next claim overlaps with the
        // handlers instead of waiting for them: one poller then keeps many workers busy.
        this.room = config.workers() + config.pollers() * config.batchSize();
    }

    synchronized void start() {
        if (!pollers.isEmpty() || stopping) {
            return;
        }
        String group = "dupguard-retry-" + GROUPS.incrementAndGet();
        AtomicInteger n = new AtomicInteger();
        handlers = Executors.newFixedThreadPool(
                config.workers(), r -> daemon(r, group + "-worker-" + n.incrementAndGet()));
        housekeeping = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, group + "-housekeeping"));
        long renewMillis = Math.max(100, config.lease().toMillis() / 3);
        housekeeping.scheduleWithFixedDelay(this::renew, renewMillis, renewMillis, TimeUnit.MILLISECONDS);
        long purgeMillis = Checks.millis(config.purgeInterval());
        housekeeping.scheduleWithFixedDelay(this::purge, purgeMillis, purgeMillis, TimeUnit.MILLISECONDS);
        completions = new Completions(store, config.listener(), group + "-completions");
        runner.batchCompletions(completions);
        subscription = store.onWork(this::wake);
        for (int i = 1; i <= config.pollers(); i++) {
            Thread t = daemon(this::poll, group + "-poller-" + i);
            pollers.add(t);
            t.start();
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Wakes the poller now, and keeps it polling briefly in case the new task is not committed yet. */
    void wake() {
        burstUntil = System.nanoTime() + BURST_NANOS;
        lock.lock();
        try {
            signalled = true;
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void poll() {
        long backoffNanos = 0;
        while (!stopping) {
            int want;
            try {
                want = reserve();
            } catch (InterruptedException e) {
                return;
            }
            if (want == 0) { // stopping
                return;
            }
            List<ClaimedTask> claimed;
            try {
                claimed = stopping ? List.of() : store.claim(config.owner(), want, config.lease());
                backoffNanos = 0;
            } catch (RuntimeException e) {
                claimed(want, 0);
                backoffNanos = nextBackoff(backoffNanos);
                config.listener().onPollFailed(e);
                LOG.warn("retry poll failed; next attempt in {} ms: {}", backoffNanos / 1_000_000, e.toString());
                pause(backoffNanos, false);
                continue;
            }
            claimed(want, claimed.size());
            for (ClaimedTask task : claimed) {
                running.add(task);
                try {
                    handlers.execute(() -> {
                        started();
                        try {
                            runner.runClaimed(task);
                        } finally {
                            running.remove(task);
                            finished();
                        }
                    });
                } catch (RuntimeException rejected) { // closing: the lease brings the task back
                    running.remove(task);
                    started();
                    finished();
                }
            }
            if (claimed.size() < want) {
                boolean burst = System.nanoTime() - burstUntil < 0;
                pause(burst ? BURST_POLL_NANOS : Checks.saturatedNanos(config.pollInterval()), true);
            }
        }
    }

    /**
     * Waits until a claim is worth making and reserves room for it: a whole batch fits, or fewer
     * tasks wait than there are handler threads. Returns the batch to claim, 0 when stopping.
     */
    private int reserve() throws InterruptedException {
        synchronized (roomLock) {
            while (!stopping) {
                int free = room - outstanding;
                if (free >= config.batchSize() || (free > 0 && queued < config.workers())) {
                    int want = Math.min(free, config.batchSize());
                    outstanding += want;
                    return want;
                }
                roomLock.wait();
            }
            return 0;
        }
    }

    /** A claim reserved {@code reserved} and got {@code got} tasks, which now wait for a handler thread. */
    private void claimed(int reserved, int got) {
        synchronized (roomLock) {
            outstanding -= reserved - got;
            queued += got;
            if (reserved > got) {
                roomLock.notifyAll();
            }
        }
    }

    private void started() {
        synchronized (roomLock) {
            queued--;
            if (queued < config.workers()) {
                roomLock.notifyAll();
            }
        }
    }

    private void finished() {
        synchronized (roomLock) {
            outstanding--;
            if (room - outstanding >= config.batchSize() || queued < config.workers()) {
                roomLock.notifyAll();
            }
        }
    }

    private long nextBackoff(long previous) {
        long max = Checks.saturatedNanos(config.maxPollBackoff());
        long base = previous == 0 ? Math.min(TimeUnit.MILLISECONDS.toNanos(100), max) : Math.min(previous * 2, max);
        return base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
    }

    private void pause(long nanos, boolean wakeable) {
        lock.lock();
        try {
            long left = nanos;
            while (left > 0 && !stopping && !(wakeable && signalled)) {
                left = woken.awaitNanos(left);
            }
            signalled = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        } finally {
            lock.unlock();
        }
    }

    private void renew() {
        if (running.isEmpty()) {
            return;
        }
        try {
            store.extendLeases(config.owner(), List.copyOf(running), config.lease());
        } catch (RuntimeException e) {
            LOG.warn("renewing retry task leases failed: {}", e.toString());
        }
    }

    private void purge() {
        try {
            int n;
            int rounds = 0;
            do {
                n = store.purgeSucceeded(config.succeededRetention(), config.purgeBatchSize());
            } while (n == config.purgeBatchSize() && ++rounds < 100 && !stopping);
        } catch (RuntimeException e) {
            LOG.warn("purging succeeded retry tasks failed: {}", e.toString());
        }
    }

    @Override
    public void close() {
        List<Thread> threads;
        synchronized (this) {
            if (stopping) {
                return;
            }
            stopping = true;
            threads = List.copyOf(pollers);
        }
        wake();
        synchronized (roomLock) {
            roomLock.notifyAll(); // a poller waiting for room
        }
        if (threads.isEmpty()) {
            return;
        }
        try {
            for (Thread p : threads) {
                p.join(TimeUnit.SECONDS.toMillis(5));
                if (p.isAlive()) { // blocked in a claim
                    p.interrupt();
                    p.join(TimeUnit.SECONDS.toMillis(5));
                }
            }
            handlers.shutdown();
            if (!handlers.awaitTermination(Checks.millis(config.shutdownTimeout()), TimeUnit.MILLISECONDS)) {
                handlers.shutdownNow();
            }
        } catch (InterruptedException e) {
            handlers.shutdownNow();
            Thread.currentThread().interrupt();
        } finally {
            completions.close();
            housekeeping.shutdownNow();
            try {
                subscription.close();
            } catch (Exception e) {
                LOG.debug("closing the work subscription failed", e);
            }
        }
    }
}

package io.dupguard.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes a thread waiting for a lock when its release is published (one pub/sub channel per lock
 * name, see {@link LockKeys#channel}). One shared pub/sub connection per provider, opened on the
 * first wait. Thread-safe.
 *
 * <ol>
 *   <li>A waiter subscribes to its lock's channel on its first wait and returns at once when the
 *       subscription is confirmed, so the caller asks Redis again: a release that happened before
 *       the subscription existed would otherwise go unseen.
 *   <li>Later waits block until a message arrives on the channel or the time is up. A message that
 *       arrives while no one waits is kept as a flag, so the next wait returns at once (at worst
 *       one extra, harmless, look at the lock).
 *   <li>A channel stays subscribed for {@link #LINGER} after its last waiter left, so sustained
 *       contention does not subscribe and unsubscribe on every hand-off.
 * </ol>
 *
 * <p>Every failure (no pub/sub connection, a refused subscription) degrades to plain waiting: the
 * caller polls Redis at the end of every wait, so notifications only make hand-off faster, never
 * decide it. Lettuce re-subscribes after a reconnect; messages published meanwhile are lost and
 * covered by the same polling.
 */
final class ReleaseNotifications implements AutoCloseable {
    /** How long a channel stays subscribed after its last waiter left. */
    static final Duration LINGER = Duration.ofSeconds(2);

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseNotifications.class);
    private static final long LINGER_NANOS = LINGER.toNanos();
    private static final long CONNECT_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    // Connecting blocks (Lettuce has no async pub/sub connect for a client's default URI), and must
    // not block a waiter past its wait nor one of Lettuce's event threads.
    private static final Executor CONNECT_THREAD = task -> {
        Thread t = new Thread(task, "dupguard-redis-pubsub-connect");
        t.setDaemon(true);
        t.start();
    };

    private final Supplier<StatefulRedisPubSubConnection<String, String>> connector;
    private final ScheduledExecutorService scheduler;
    private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();
    private final Object connectLock = new Object();
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection; // guarded by connectLock
    private long nextConnectAttempt; // guarded by connectLock
    private boolean closed; // guarded by connectLock

    ReleaseNotifications(
            Supplier<StatefulRedisPubSubConnection<String, String>> connector, ScheduledExecutorService scheduler) {
        this.connector = connector;
        this.scheduler = scheduler;
    }

    /** Blocks up to {@code nanos}, or less when a release is published on {@code channel}. */
    void await(String channel, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        Channel c = channels.compute(channel, (k, v) -> {
            Channel ch = v == null ? new Channel(k) : v;
            ch.waiters++;
            return ch;
        });
        try {
            if (c.subscribed) {
                c.awaitSignal(deadline);
            } else if (!subscribe(c, deadline)) {
                TimeUnit.NANOSECONDS.sleep(deadline - System.nanoTime());
            }
        } finally {
            // c stays mapped while it has waiters: eviction only removes idle channels.
            channels.computeIfPresent(channel, (k, v) -> {
                if (--v.waiters == 0) {
                    v.idleSince = System.nanoTime();
                    scheduleEviction(v, LINGER_NANOS);
                }
                return v;
            });
        }
    }

    /** Whether {@code channel} is subscribed now (for tests). */
    boolean subscribed(String channel) {
        Channel c = channels.get(channel);
        return c != null && c.subscribed;
    }

    /** True once subscribed (the caller should look at the lock again); false if it cannot be. */
    private boolean subscribe(Channel c, long deadline) throws InterruptedException {
        StatefulRedisPubSubConnection<String, String> conn = connection(deadline);
        if (conn == null) {
            return false;
        }
        CompletableFuture<Void> pending;
        synchronized (c) {
            if (c.subscription == null) {
                c.subscription = conn.async().subscribe(c.name).toCompletableFuture();
            }
            pending = c.subscription;
        }
        try {
            pending.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            c.subscribed = true;
            return true;
        } catch (TimeoutException e) {
            return true; // the wait is over anyway; the next wait finds the subscription done
        } catch (ExecutionException e) {
            synchronized (c) {
                if (c.subscription == pending) {
                    c.subscription = null; // try again on a later wait
                }
            }
            LOG.debug("cannot subscribe to {}; polling instead", c.name, e.getCause());
            return false;
        }
    }

    private StatefulRedisPubSubConnection<String, String> connection(long deadline) throws InterruptedException {
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> f;
        synchronized (connectLock) {
            if (closed) {
                return null;
            }
            if (connection == null
                    || (connection.isCompletedExceptionally() && System.nanoTime() - nextConnectAttempt >= 0)) {
                nextConnectAttempt = System.nanoTime() + CONNECT_RETRY_NANOS;
                connection = CompletableFuture.supplyAsync(this::open, CONNECT_THREAD);
            }
            f = connection;
        }
        try {
            return f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            return null;
        }
    }

    private StatefulRedisPubSubConnection<String, String> open() {
        StatefulRedisPubSubConnection<String, String> c;
        try {
            c = connector.get();
        } catch (RuntimeException e) {
            LOG.debug("cannot open the pub/sub connection; waiters poll instead", e);
            throw e;
        }
        c.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                Channel ch = channels.get(channel);
                if (ch != null) {
                    ch.signal();
                }
            }
        });
        synchronized (connectLock) {
            if (closed) {
                c.closeAsync();
                throw new IllegalStateException("closed while connecting");
            }
        }
        return c;
    }

    // Called inside the map's compute for c's name, which guards waiters/idleSince/evictionPending.
    private void scheduleEviction(Channel c, long delayNanos) {
        if (c.evictionPending) {
            return;
        }
        try {
            scheduler.schedule(() -> evict(c), delayNanos, TimeUnit.NANOSECONDS);
            c.evictionPending = true;
        } catch (RejectedExecutionException e) {
            // The client is shutting down; close() drops the channels.
        }
    }

    private void evict(Channel c) {
        channels.computeIfPresent(c.name, (k, v) -> {
            if (v != c) {
                return v;
            }
            c.evictionPending = false;
            if (c.waiters > 0) {
                return c; // the last waiter to leave schedules the next check
            }
            long idle = System.nanoTime() - c.idleSince;
            if (idle < LINGER_NANOS) {
                scheduleEviction(c, LINGER_NANOS - idle);
                return c;
            }
            // Sent inside compute, so a new waiter's SUBSCRIBE to the same channel goes after it.
            unsubscribe(c);
            return null;
        });
    }

    private void unsubscribe(Channel c) {
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> f;
        synchronized (connectLock) {
            f = connection;
        }
        boolean had;
        synchronized (c) {
            had = c.subscription != null;
        }
        if (had && f != null && f.isDone() && !f.isCompletedExceptionally()) {
            f.join().async().unsubscribe(c.name); // a failure only leaves an idle subscription behind
        }
    }

    /** Closes the pub/sub connection (once it is open, if it is still opening). */
    @Override
    public void close() {
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> f;
        synchronized (connectLock) {
            closed = true;
            f = connection;
            connection = null;
        }
        channels.clear();
        if (f != null && f.isDone() && !f.isCompletedExceptionally()) {
            f.join().close(); // synchronously, so that shutting the client down right after is quiet
        } else if (f != null) {
            f.thenAccept(StatefulRedisPubSubConnection::closeAsync);
        }
    }

    /** One lock's channel: its local waiters and whether a release arrived. */
    private static final class Channel {
        final String name;
        int waiters; // guarded by the map's compute
        long idleSince;
        boolean evictionPending;
        CompletableFuture<Void> subscription; // guarded by this
        volatile boolean subscribed;
        private boolean signalled; // guarded by this

        Channel(String name) {
            this.name = name;
        }

        synchronized void signal() {
            signalled = true;
            notifyAll();
        }

        synchronized void awaitSignal(long deadline) throws InterruptedException {
            long left;
            while (!signalled && (left = deadline - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            signalled = false;
        }
    }
}

package io.dupguard.zookeeper;

import io.dupguard.internal.Checks;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One outer acquisition: the lock node, its fencing token, the session that owns it and the hold
 * count of its owner. Not part of the public API. Thread-safe.
 *
 * <p>The hold ends when the owner releases it, when its fixed lease runs out (a local timer, since
 * ZooKeeper has no expiry for ephemeral nodes: the timer deletes the node) or when the session that
 * created the node is lost (the server deletes the node). After that {@link #isHeld()} and {@link
 * #extend} answer false and releasing only makes sure the node is gone.
 */
final class ZkHold {
    private static final Logger LOG = LoggerFactory.getLogger(ZkHold.class);
    private static final ScheduledThreadPoolExecutor LEASE_TIMER = leaseTimer();

    final HoldKey key;
    final String path;
    final long fence;
    /** Outer plus reentrant acquisitions not yet closed; changed only inside the provider's map. */
    final AtomicInteger count = new AtomicInteger(1);

    private final CuratorFramework client;
    private final FencedMutex mutex;
    private final Thread acquirer;
    private final long sessionId;
    private volatile boolean ended;
    private volatile Runnable onLost;
    private boolean released; // guarded by this
    private ScheduledFuture<?> expiry; // guarded by this

    /** Who holds which lock through one provider: the unit of reentrancy. */
    record HoldKey(String name, String owner) {}

    ZkHold(HoldKey key, CuratorFramework client, FencedMutex mutex, String path, Stat node) {
        this.key = key;
        this.client = client;
        this.mutex = mutex;
        this.path = path;
        this.fence = node.getCzxid();
        this.sessionId = node.getEphemeralOwner();
        this.acquirer = Thread.currentThread();
    }

    /** Arms the fixed lease; without one the hold lasts as long as the session. */
    void startLease(Duration lease) {
        synchronized (this) {
            expiry = LEASE_TIMER.schedule(this::expire, Checks.millis(lease), TimeUnit.MILLISECONDS);
        }
    }

    /** Whether this hold is known to be over without asking ZooKeeper. */
    boolean ended() {
        return ended;
    }

    /** Whether the node still exists under the client's current session. Asks ZooKeeper. */
    boolean isHeld() throws Exception {
        if (ended) {
            return false;
        }
        Stat stat = client.checkExists().forPath(path);
        // A node of an earlier session lingers until the server expires that session; the client
        // has moved on to a new session and no longer holds it.
        return stat != null
                && stat.getEphemeralOwner()
                        == client.getZookeeperClient().getZooKeeper().getSessionId()
                && !ended;
    }

    /** Restarts a fixed lease at {@code lease}; a session-bound hold needs nothing. */
    boolean extend(Duration lease) throws Exception {
        if (!isHeld()) {
            return false;
        }
        synchronized (this) {
            if (ended || released) {
                return false;
            }
            if (expiry != null) {
                expiry.cancel(false);
                expiry = LEASE_TIMER.schedule(this::expire, Checks.millis(lease), TimeUnit.MILLISECONDS);
            }
            return true;
        }
    }

    /**
     * The client's session was lost. Unless this node belongs to the new session, the hold is over;
     * the node is deleted right away in case the server has not expired the old session yet (a
     * client-side expiry), so that the next contender need not wait for that.
     */
    void sessionLost(long currentSession) {
        if (sessionId != currentSession && end()) {
            deleteInBackground("session lost");
            Runnable callback = onLost;
            if (callback != null) {
                try {
                    callback.run();
                } catch (RuntimeException e) {
                    LOG.warn("lease-lost callback of lock node {} threw", path, e);
                }
            }
        }
    }

    /** Runs {@code callback} once if the session that holds this node is lost. */
    void onSessionLost(Runnable callback) {
        this.onLost = callback;
    }

    /** The fixed lease ran out: stop holding and delete the node so the next contender moves up. */
    private void expire() {
        if (end()) {
            deleteInBackground("lease expired");
        }
    }

    private void deleteInBackground(String why) {
        try {
            // In the background: timer and connection-state threads serve everyone, must not block.
            client.delete().guaranteed().inBackground().forPath(path);
        } catch (Exception e) {
            LOG.warn("could not delete lock node {} ({}); it goes when its session ends", path, why, e);
        }
    }

    private synchronized boolean end() {
        if (ended || released) {
            return false;
        }
        ended = true;
        if (expiry != null) {
            expiry.cancel(false);
            expiry = null;
        }
        return true;
    }

    /**
     * Deletes the lock node once. On the acquiring thread through {@link FencedMutex#release()};
     * from any other thread (a lease of an explicit owner closed elsewhere) by the same guaranteed
     * delete of the same node that {@code release()} performs, because Curator's mutex only lets
     * its acquiring thread release. The mutex instance is used for this one acquisition only, so
     * its per-thread bookkeeping is dropped with it.
     */
    void release() {
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            if (expiry != null) {
                expiry.cancel(false);
                expiry = null;
            }
        }
        try {
            if (Thread.currentThread() == acquirer) {
                mutex.release();
            } else {
                client.delete().guaranteed().forPath(path);
            }
        } catch (KeeperException.NoNodeException e) {
            // Expired, session lost, or deleted by the lease timer: nothing left to release.
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            // A guaranteed delete keeps retrying in the background; at worst the session ends it.
            LOG.warn("could not release lock '{}' now; its node {} will be deleted later", key.name(), path, e);
        }
    }

    private static ScheduledThreadPoolExecutor leaseTimer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "dupguard-zookeeper-lease");
            t.setDaemon(true);
            return t;
        });
        // Most fixed leases are closed long before they run out: drop their timers at once.
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}

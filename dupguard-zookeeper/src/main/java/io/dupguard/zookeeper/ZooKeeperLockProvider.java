package io.dupguard.zookeeper;

import io.dupguard.StoreUnavailableException;
import io.dupguard.internal.Checks;
import io.dupguard.internal.LockOwners;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.lock.LockUnavailableException;
import io.dupguard.lock.spi.AbstractLockProvider;
import io.dupguard.zookeeper.ZkHold.HoldKey;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.data.Stat;

/**
 * {@link LockProvider} on ZooKeeper, built on Apache Curator's {@link InterProcessMutex} recipe.
 *
 * <p>Acquisition:
 *
 * <ol>
 *   <li>Validate the name (1–200 characters, no control characters) and percent-encode it into one
 *       path segment under the base path, so any valid name is a valid lock ({@code a/b}, emoji).
 *   <li>The same owner (the thread, or {@link LockOptions.Builder#owner(String)}) already holds the
 *       lock through this provider ⇒ count one more hold (L4); ZooKeeper is not asked.
 *   <li>Otherwise a fresh {@code InterProcessMutex} creates an ephemeral sequential node under the
 *       lock's path and lists the children (two round trips). Its node first ⇒ held. Otherwise it
 *       watches only its predecessor and waits for that watch up to the wait time: FIFO across all
 *       machines, no polling, no herd; on timeout it deletes its node.
 *   <li>The fencing token is the node's creation zxid ({@code czxid}) from the create reply (L5).
 *   <li>A fixed {@link LockOptions#leaseTime()} starts a local timer that ends the hold and deletes
 *       the node when it runs out; without one the lock lasts as long as the ZooKeeper session.
 * </ol>
 *
 * <p>Release: the outermost {@code close()} deletes the node (one round trip). The lease ends
 * without a release when the session is lost ({@link ConnectionState#LOST}): the server deletes
 * ephemeral nodes of an expired session, so a crashed holder's lock frees after the session
 * timeout (L2), and {@link Lease#isHeld()} answers false.
 *
 * <p>Thread-safe. The {@link CuratorFramework} belongs to the caller, who starts and closes it;
 * {@link #close()} only unregisters this provider's connection listener. ZooKeeper failures (no
 * connection within the client's connection timeout and retry policy, a closed client) throw
 * {@link StoreUnavailableException}, never "lock free" or "lock taken".
 */
public final class ZooKeeperLockProvider implements LockProvider, AutoCloseable {
    /** Parent of all lock nodes unless {@link Builder#basePath(String)} says otherwise. */
    public static final String DEFAULT_BASE_PATH = "/dupguard/locks";

    static final String STORE = "zookeeper";
    private static final Duration MAX_WAIT = Duration.ofDays(365);

    private final CuratorFramework client;
    private final String basePath;
    private final ConcurrentHashMap<HoldKey, ZkHold> holds = new ConcurrentHashMap<>();
    private final ConnectionStateListener sessionWatcher = this::onConnectionState;

    private ZooKeeperLockProvider(Builder b) {
        this.client = b.client;
        this.basePath = b.basePath;
        client.getConnectionStateListenable().addListener(sessionWatcher);
    }

    /**
     * A provider on {@code client} (started by the caller) under {@link #DEFAULT_BASE_PATH}.
     *
     * @param client the Curator client, started and owned by the caller; not null
     * @return a thread-safe provider
     */
    public static ZooKeeperLockProvider create(CuratorFramework client) {
        return builder(client).build();
    }

    /**
     * A builder on {@code client} (started and owned by the caller; closing the provider leaves it
     * open).
     *
     * @param client the Curator client; not null
     * @return a new builder
     * @throws NullPointerException if {@code client} is null
     */
    public static Builder builder(CuratorFramework client) {
        return new Builder(client);
    }

    @Override
    public Optional<Lease> tryAcquire(String name, LockOptions options) {
        return acquire(name, options, false);
    }

    @Override
    public Lease acquire(String name, LockOptions options) {
        return acquire(name, options, true).orElseThrow(() -> new LockUnavailableException(name, options.waitTime()));
    }

    private Optional<Lease> acquire(String name, LockOptions options, boolean wait) {
        Checks.text(name, AbstractLockProvider.MAX_NAME_LENGTH, "lock name");
        Objects.requireNonNull(options, "options");
        HoldKey key = new HoldKey(name, LockOwners.of(options));
        ZkHold[] reentered = {null};
        holds.computeIfPresent(key, (k, h) -> {
            // A hold whose lease ran out or whose session was lost is not held: acquire anew.
            if (!h.ended()) {
                h.count.incrementAndGet();
                reentered[0] = h;
            }
            return h;
        });
        if (reentered[0] != null) {
            return Optional.of(new ZooKeeperLease(this, reentered[0]));
        }
        checkUsable();
        long waitMillis = wait ? Checks.millis(min(options.waitTime(), MAX_WAIT)) : 0;
        FencedMutex mutex = FencedMutex.create(client, LockPaths.lockPath(basePath, name));
        try {
            if (!mutex.acquire(waitMillis, TimeUnit.MILLISECONDS)) {
                checkUsable(); // the mutex also gives up when the client is closed meanwhile
                return Optional.empty();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (Exception e) {
            throw unavailable("acquire lock '" + name + "'", e);
        }
        ZkHold hold = held(key, mutex);
        if (options.leaseTime().isPresent()) {
            hold.startLease(options.leaseTime().get());
        }
        // Supersedes an ended hold of the same owner whose leases are not all closed yet.
        holds.put(key, hold);
        ZooKeeperLease lease = new ZooKeeperLease(this, hold);
        if (options.watchdog()) {
            hold.onSessionLost(() -> options.onLeaseLost().accept(lease)); // the session is the lease
        }
        return Optional.of(lease);
    }

    /** Wraps a just-acquired mutex; gives it back if its node cannot be described. */
    private ZkHold held(HoldKey key, FencedMutex mutex) {
        String path = mutex.acquiredPath();
        try {
            Stat node = mutex.createStat(path);
            if (node == null) {
                node = client.checkExists().forPath(path);
            }
            if (node == null) {
                throw new IllegalStateException("lock node " + path + " vanished: the session expired");
            }
            return new ZkHold(key, client, mutex, path, node);
        } catch (Exception e) {
            try {
                mutex.release();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw unavailable("acquire lock '" + key.name() + "'", e);
        }
    }

    /** Closes one acquisition; the last one of a hold releases the lock. */
    void exit(ZkHold hold) {
        boolean[] last = {false};
        // In the map's compute, so a concurrent reentrant acquire either counts before this or
        // finds the entry gone and goes to ZooKeeper.
        holds.compute(hold.key, (k, current) -> {
            if (hold.count.decrementAndGet() > 0) {
                return current;
            }
            last[0] = true;
            return current == hold ? null : current;
        });
        if (last[0]) {
            hold.release();
        }
    }

    private void onConnectionState(CuratorFramework c, ConnectionState state) {
        if (state != ConnectionState.LOST) {
            return;
        }
        long current;
        try {
            current = c.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            current = 0; // no live session: every hold is gone
        }
        for (ZkHold hold : holds.values()) {
            hold.sessionLost(current);
        }
    }

    private void checkUsable() {
        CuratorFrameworkState state = client.getState();
        if (state == CuratorFrameworkState.LATENT) {
            throw new IllegalStateException("the CuratorFramework was not started; call start() first");
        }
        if (state == CuratorFrameworkState.STOPPED) {
            throw new StoreUnavailableException(STORE, "the CuratorFramework is closed", null);
        }
    }

    static StoreUnavailableException unavailable(String what, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        if (e instanceof StoreUnavailableException s) {
            return s;
        }
        return new StoreUnavailableException(STORE, what + " failed: " + e, e);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** Stops listening to the client's connection state. Does not close the client or release locks. */
    @Override
    public void close() {
        client.getConnectionStateListenable().removeListener(sessionWatcher);
    }

    @Override
    public String toString() {
        return "ZooKeeperLockProvider[" + basePath + "]";
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private final CuratorFramework client;
        private String basePath = DEFAULT_BASE_PATH;

        private Builder(CuratorFramework client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /**
         * Parent node of the locks ({@link #DEFAULT_BASE_PATH}): an absolute ZooKeeper path, not
         * the root, no trailing slash. Relative to the client's namespace, if it has one.
         *
         * @param basePath the parent node; an absolute path, not the root, without a trailing slash
         * @return this builder
         * @throws IllegalArgumentException if {@code basePath} is not such a path
         */
        public Builder basePath(String basePath) {
            this.basePath = LockPaths.basePath(basePath);
            return this;
        }

        /**
         * Builds the provider.
         *
         * @return a thread-safe provider, which watches the client's connection state
         */
        public ZooKeeperLockProvider build() {
            return new ZooKeeperLockProvider(this);
        }
    }
}

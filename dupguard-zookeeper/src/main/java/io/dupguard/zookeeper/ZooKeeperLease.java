package io.dupguard.zookeeper;

import io.dupguard.internal.Checks;
import io.dupguard.lock.Lease;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One acquisition (outer or reentrant) of a ZooKeeper lock: a view of the shared {@link ZkHold}.
 * Not part of the public API. Thread-safe; may be closed from any thread.
 */
final class ZooKeeperLease implements Lease {
    private final ZooKeeperLockProvider provider;
    private final ZkHold hold;
    private final AtomicBoolean closed = new AtomicBoolean();

    ZooKeeperLease(ZooKeeperLockProvider provider, ZkHold hold) {
        this.provider = provider;
        this.hold = hold;
    }

    @Override
    public String name() {
        return hold.key.name();
    }

    @Override
    public long fencingToken() {
        return hold.fence;
    }

    /**
     * Checks with ZooKeeper that the node still exists under the current session, then restarts a
     * fixed lease at {@code leaseTime}. A lease without a fixed lease time lives as long as the
     * session, so there is nothing to restart and this only answers whether it is still held.
     */
    @Override
    public boolean extend(Duration leaseTime) {
        Checks.positive(leaseTime, "leaseTime");
        if (closed.get()) {
            return false;
        }
        try {
            return hold.extend(leaseTime);
        } catch (Exception e) {
            throw ZooKeeperLockProvider.unavailable("extend lock '" + name() + "'", e);
        }
    }

    @Override
    public boolean isHeld() {
        if (closed.get()) {
            return false;
        }
        try {
            return hold.isHeld();
        } catch (Exception e) {
            throw ZooKeeperLockProvider.unavailable("check lock '" + name() + "'", e);
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            provider.exit(hold);
        }
    }

    @Override
    public String toString() {
        return "Lease[" + name() + ", fence=" + hold.fence + "]";
    }
}

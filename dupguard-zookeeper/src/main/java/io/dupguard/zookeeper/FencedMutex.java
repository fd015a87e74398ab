package io.dupguard.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;

/**
 * Curator's {@link InterProcessMutex}, unchanged in how it queues and waits, that also reports the
 * {@link Stat} of the lock node it created. Not part of the public API.
 *
 * <p>Why: the fencing token is the node's creation zxid ({@code czxid}). Reading it from the
 * create reply costs nothing; reading it afterwards would add a round trip to every acquisition.
 * The only change is in {@link Driver#createsTheLock}: the same create call as {@link
 * StandardLockInternalsDriver} (protected, parent containers, ephemeral sequential) with {@code
 * storingStatIn}. One instance serves one acquisition (see {@link ZkHold}), so the captured stat
 * belongs to that acquisition. Use from one thread at a time.
 */
final class FencedMutex extends InterProcessMutex {
    private final Driver driver;

    private FencedMutex(CuratorFramework client, String path, Driver driver) {
        super(client, path, driver);
        this.driver = driver;
    }

    static FencedMutex create(CuratorFramework client, String path) {
        return new FencedMutex(client, path, new Driver());
    }

    /** The acquired lock node's path; call on the acquiring thread, after a successful acquire. */
    String acquiredPath() {
        return getLockPath();
    }

    /**
     * The create reply's stat of {@code path}, or null if it is unknown: when a create's reply was
     * lost, Curator's protected mode finds the node by listing its parent and no stat comes back.
     */
    Stat createStat(String path) {
        return path.equals(driver.path) && driver.stat.getCzxid() != 0 ? driver.stat : null;
    }

    /** The standard driver, plus the stat of the node it created last. */
    private static final class Driver extends StandardLockInternalsDriver {
        private volatile String path;
        private volatile Stat stat = new Stat();

        @Override
        public String createsTheLock(CuratorFramework client, String path, byte[] lockNodeBytes) throws Exception {
            Stat created = new Stat();
            // Curator may call this again for the same acquisition (its NoNode retry); the last
            // node created is the one that is then acquired.
            var create = client.create()
                    .storingStatIn(created)
                    .creatingParentContainersIfNeeded()
                    .withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL);
            String ourPath = lockNodeBytes == null ? create.forPath(path) : create.forPath(path, lockNodeBytes);
            this.stat = created;
            this.path = ourPath;
            return ourPath;
        }
    }
}

package io.dupguard.zookeeper;

import io.dupguard.lock.LockProvider;
import io.dupguard.test.AbstractLockProviderContractTest;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The lock contract on a real (in-process) ZooKeeper server; each machine has its own client and
 * so its own session.
 *
 * <p>The shared tests that abandon a fixed lease ({@code crashedHoldersLockFreesAtExpiry}, {@code
 * closeAfterExpiryDoesNotReleaseTheNewHolder}, {@code pausedHoldersFencedWriteIsRejected}) run
 * unchanged: a fixed lease is enforced by the holder's own timer, which deletes the lock node when
 * the lease runs out. Their ZooKeeper-faithful counterparts, where the holder's session dies,
 * are in {@link ZooKeeperSessionIT}.
 */
class ZooKeeperLockProviderIT extends AbstractLockProviderContractTest {
    private static TestingServer server;
    private static final CuratorFramework[] clients = new CuratorFramework[3];
    private static final ZooKeeperLockProvider[] machines = new ZooKeeperLockProvider[3];

    @BeforeAll
    static void startZooKeeper() throws Exception {
        server = ZooKeeperFixtures.startServer();
        for (int i = 0; i < 3; i++) {
            clients[i] = ZooKeeperFixtures.client(server, ZooKeeperFixtures.SESSION);
            machines[i] = ZooKeeperLockProvider.create(clients[i]);
        }
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        for (int i = 0; i < 3; i++) {
            if (machines[i] != null) {
                machines[i].close();
            }
            if (clients[i] != null) {
                clients[i].close();
            }
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected LockProvider provider() {
        return machines[0];
    }

    @Override
    protected LockProvider machine(int i) {
        return machines[i];
    }
}

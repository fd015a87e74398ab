package io.dupguard.shedlock;

import io.dupguard.lock.LockProvider;
import io.dupguard.zookeeper.ZooKeeperLockProvider;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The ShedLock suite on dupguard's ZooKeeper locks (Curator's TestingServer), a client each node. */
class ZooKeeperShedLockIT extends AbstractShedLockContractIT {
    private static TestingServer server;
    private static final CuratorFramework[] CLIENTS = new CuratorFramework[2];
    private static final ZooKeeperLockProvider[] NODES = new ZooKeeperLockProvider[2];

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
        for (int i = 0; i < 2; i++) {
            CLIENTS[i] = CuratorFrameworkFactory.builder()
                    .connectString(server.getConnectString())
                    .sessionTimeoutMs(20_000)
                    .retryPolicy(new ExponentialBackoffRetry(50, 5))
                    .build();
            CLIENTS[i].start();
            if (!CLIENTS[i].blockUntilConnected(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not connect to " + server.getConnectString());
            }
            NODES[i] = ZooKeeperLockProvider.create(CLIENTS[i]);
        }
    }

    @AfterAll
    static void stopServer() throws Exception {
        for (int i = 0; i < 2; i++) {
            NODES[i].close();
            CLIENTS[i].close();
        }
        server.close();
    }

    @Override
    protected LockProvider node(int i) {
        return NODES[i];
    }
}

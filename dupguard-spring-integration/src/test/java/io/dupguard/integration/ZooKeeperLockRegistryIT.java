package io.dupguard.integration;

import io.dupguard.zookeeper.ZooKeeperLockProvider;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The registry suite on dupguard's ZooKeeper locks (Curator's TestingServer); each node its own
 * Curator client and session. Killing a node closes its client: its session ends and its lock
 * nodes go with it.
 */
class ZooKeeperLockRegistryIT extends AbstractLockRegistryContractIT {
    private static TestingServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @Override
    protected Node newNode() {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .sessionTimeoutMs(10_000)
                .retryPolicy(new ExponentialBackoffRetry(50, 5))
                .build();
        client.start();
        try {
            if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
                client.close();
                throw new IllegalStateException("could not connect to " + server.getConnectString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.close();
            throw new IllegalStateException(e);
        }
        ZooKeeperLockProvider locks = ZooKeeperLockProvider.create(client);
        return new Node(locks, () -> {
            locks.close();
            client.close();
        });
    }

    @Override
    protected void close(Node node) {
        node.kill().run();
    }
}

package io.dupguard.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.StoreUnavailableException;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.test.ExpectedWarnings;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** ZooKeeper out of reach is a store failure, never "lock taken" or "lock free", and never a hang. */
@ExpectedWarnings("ZooKeeper and Curator log lost connections and expired sessions while the server is stopped")
class ZooKeeperOutageIT {
    private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);
    // The clients here do not retry: one connection timeout per attempt (a protected create that
    // lost its connection looks for its node once more), plus room for a busy 2-core machine.
    private static final Duration GIVE_UP_WITHIN = Duration.ofSeconds(6);

    @Test
    void unreachableServerFailsWithinTheConnectionTimeout() throws Exception {
        try (CuratorFramework dead = ZooKeeperFixtures.unreachableClient(CONNECTION_TIMEOUT);
                ZooKeeperLockProvider locks = ZooKeeperLockProvider.create(dead)) {
            assertGivesUpQuickly(() -> locks.tryAcquire("order-1"));
            // A long wait time is for a held lock, not for a server that does not answer.
            assertGivesUpQuickly(() -> locks.acquire(
                    "order-1",
                    LockOptions.custom().waitTime(Duration.ofMinutes(5)).build()));
        }
    }

    @Test
    void serverGoneWhileHoldingMakesIsHeldAStoreFailure() throws Exception {
        try (TestingServer server = ZooKeeperFixtures.startServer();
                CuratorFramework client = CuratorFrameworkFactory.builder()
                        .connectString(server.getConnectString())
                        .sessionTimeoutMs(30_000)
                        .connectionTimeoutMs((int) CONNECTION_TIMEOUT.toMillis())
                        .retryPolicy(new RetryNTimes(0, 0))
                        .build()) {
            client.start();
            ZooKeeperLockProvider locks = ZooKeeperLockProvider.create(client);
            Lease lease = locks.tryAcquire("outage").orElseThrow();
            server.stop();

            assertGivesUpQuickly(lease::isHeld);
            assertGivesUpQuickly(() -> locks.tryAcquire("another"));
            lease.close(); // logged, not thrown: the node goes with the session
        }
    }

    @Test
    void closedClientIsAStoreFailureAndUnstartedClientAMisuse() throws Exception {
        try (TestingServer server = ZooKeeperFixtures.startServer()) {
            CuratorFramework client = ZooKeeperFixtures.client(server, ZooKeeperFixtures.SESSION);
            ZooKeeperLockProvider locks = ZooKeeperLockProvider.create(client);
            client.close();
            assertThatThrownBy(() -> locks.tryAcquire("x"))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("closed");

            try (CuratorFramework latent =
                    CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100))) {
                assertThatThrownBy(() -> ZooKeeperLockProvider.create(latent).tryAcquire("x"))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("start()");
            }
        }
    }

    private static void assertGivesUpQuickly(Runnable call) {
        long start = System.nanoTime();
        assertThatThrownBy(call::run)
                .isInstanceOf(StoreUnavailableException.class)
                .satisfies(
                        e -> assertThat(((StoreUnavailableException) e).store()).isEqualTo("zookeeper"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GIVE_UP_WITHIN);
    }
}

package io.dupguard.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dupguard.StoreUnavailableException;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.test.ExpectedWarnings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What only ZooKeeper does: the session is the lease, and the fence is the lock node's zxid.
 *
 * <p>These are the ZooKeeper-faithful versions of the contract's "crashed holder" tests. A crashed
 * process does not run its lease timer; its lock frees because the server expires its session.
 * {@link KillSession} expires the session on the client side (as a partition longer than the
 * session timeout would); the server then expires it after the session timeout.
 */
@ExpectedWarnings("ZooKeeper and Curator log the session expiries these tests cause")
class ZooKeeperSessionIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static TestingServer server;
    private static CuratorFramework observerClient;
    private static ZooKeeperLockProvider other;

    private String name;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        server = ZooKeeperFixtures.startServer();
        observerClient = ZooKeeperFixtures.client(server, ZooKeeperFixtures.SESSION);
        other = ZooKeeperLockProvider.create(observerClient);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        other.close();
        observerClient.close();
        server.close();
    }

    @BeforeEach
    void pickName() {
        name = "session-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    private static LockOptions waiting() {
        return LockOptions.custom().waitTime(WAIT).build();
    }

    @Test
    void crashedHoldersLockFreesWhenTheServerExpiresItsSession() throws Exception {
        CuratorFramework victim = ZooKeeperFixtures.client(server, ZooKeeperFixtures.SHORT_SESSION);
        Lease abandoned = ZooKeeperLockProvider.create(victim).tryAcquire(name).orElseThrow();
        // The process dies: its session is never closed, nothing deletes the node but the server.
        KillSession.kill(victim.getZookeeperClient().getZooKeeper());
        victim.close();

        long start = System.nanoTime();
        try (Lease next = other.acquire(name, waiting())) {
            assertThat(next.fencingToken()).isGreaterThan(abandoned.fencingToken());
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WAIT);
        }
    }

    @Test
    void sessionExpiryEndsTheLeaseAndAnotherMachineTakesOver() throws Exception {
        try (CuratorFramework victim = ZooKeeperFixtures.client(server, ZooKeeperFixtures.SHORT_SESSION);
                ZooKeeperLockProvider locks = ZooKeeperLockProvider.create(victim)) {
            Lease lost = locks.tryAcquire(name).orElseThrow();
            assertThat(lost.isHeld()).isTrue();

            KillSession.kill(victim.getZookeeperClient().getZooKeeper());

            await().atMost(WAIT)
                    .ignoreException(StoreUnavailableException.class)
                    .until(() -> !lost.isHeld());
            assertThat(lost.extend(Duration.ofSeconds(10))).isFalse();
            try (Lease next = other.acquire(name, waiting())) {
                assertThat(next.fencingToken()).isGreaterThan(lost.fencingToken());
                lost.close();
                assertThat(next.isHeld()).isTrue();
                assertThat(locks.tryAcquire(name)).isEmpty();
            }
            // The client carries on with a new session, and so does the provider.
            try (Lease again = locks.acquire(name, waiting())) {
                assertThat(again.isHeld()).isTrue();
            }
        }
    }

    @Test
    void sameOwnerAcquiresAnewAfterItsSessionWasLost() throws Exception {
        try (CuratorFramework victim = ZooKeeperFixtures.client(server, ZooKeeperFixtures.SHORT_SESSION);
                ZooKeeperLockProvider locks = ZooKeeperLockProvider.create(victim)) {
            Lease lost = locks.tryAcquire(name).orElseThrow();
            KillSession.kill(victim.getZookeeperClient().getZooKeeper());
            await().atMost(WAIT)
                    .ignoreException(StoreUnavailableException.class)
                    .until(() -> !lost.isHeld());

            // Not a reentrant hold of the lost lease: a new hold with its own, larger fence.
            try (Lease fresh = locks.acquire(name, waiting())) {
                assertThat(fresh.fencingToken()).isGreaterThan(lost.fencingToken());
                assertThat(fresh.isHeld()).isTrue();
                lost.close();
                assertThat(fresh.isHeld()).isTrue();
            }
        }
    }

    @Test
    void pausedHoldersFencedWriteIsRejectedAfterItsSessionExpired() throws Exception {
        var account = new FencedAccount();
        try (CuratorFramework victim = ZooKeeperFixtures.client(server, ZooKeeperFixtures.SHORT_SESSION);
                ZooKeeperLockProvider locks = ZooKeeperLockProvider.create(victim)) {
            Lease paused = locks.tryAcquire(name).orElseThrow();
            // The holder stalls longer than its session timeout; the session expires meanwhile.
            KillSession.kill(victim.getZookeeperClient().getZooKeeper());
            try (Lease successor = other.acquire(name, waiting())) {
                assertThat(account.write(successor.fencingToken(), "by successor"))
                        .isTrue();
            }
            assertThat(account.write(paused.fencingToken(), "stale")).isFalse();
            assertThat(account.value()).isEqualTo("by successor");
            paused.close();
        }
    }

    @Test
    void fencingTokenIsTheLockNodesCreationZxid() throws Exception {
        try (Lease lease = other.tryAcquire(name).orElseThrow()) {
            String dir = LockPaths.lockPath(ZooKeeperLockProvider.DEFAULT_BASE_PATH, name);
            List<String> nodes = observerClient.getChildren().forPath(dir);
            assertThat(nodes).hasSize(1);
            Stat stat = observerClient.checkExists().forPath(dir + "/" + nodes.get(0));
            assertThat(lease.fencingToken()).isEqualTo(stat.getCzxid());
            assertThat(stat.getEphemeralOwner())
                    .isEqualTo(
                            observerClient.getZookeeperClient().getZooKeeper().getSessionId());
        }
    }

    @Test
    void fenceKeepsIncreasingWhenTheLocksParentNodeIsRecreated() throws Exception {
        String dir = LockPaths.lockPath(ZooKeeperLockProvider.DEFAULT_BASE_PATH, name);
        long first;
        String firstNode;
        try (Lease lease = other.tryAcquire(name).orElseThrow()) {
            first = lease.fencingToken();
            firstNode = observerClient.getChildren().forPath(dir).get(0);
        }
        // ZooKeeper deletes an empty container node on its own; the sequence counter restarts with
        // a new parent, but zxids never go back.
        observerClient.delete().forPath(dir);
        try (Lease lease = other.tryAcquire(name).orElseThrow()) {
            String secondNode = observerClient.getChildren().forPath(dir).get(0);
            assertThat(sequence(secondNode)).isLessThanOrEqualTo(sequence(firstNode));
            assertThat(lease.fencingToken()).isGreaterThan(first);
        }
    }

    @Test
    void fenceKeepsIncreasingAcrossAServerRestart() throws Exception {
        long before;
        try (Lease lease = other.tryAcquire(name).orElseThrow()) {
            before = lease.fencingToken();
        }
        server.restart();
        // The session survives a short restart, and the server resumes its zxid counter from its
        // transaction log (an ensemble also raises the epoch in the zxid's high 32 bits).
        try (Lease lease = other.acquire(name, waiting())) {
            assertThat(lease.fencingToken()).isGreaterThan(before);
        }
    }

    private static long sequence(String node) {
        return Long.parseLong(node.substring(node.lastIndexOf('-') + 1));
    }

    /** A resource that refuses writes carrying a fence lower than one it has seen (L5). */
    private static final class FencedAccount {
        private long highest;
        private String value;

        synchronized boolean write(long fence, String newValue) {
            if (fence < highest) {
                return false;
            }
            highest = fence;
            value = newValue;
            return true;
        }

        synchronized String value() {
            return value;
        }
    }
}

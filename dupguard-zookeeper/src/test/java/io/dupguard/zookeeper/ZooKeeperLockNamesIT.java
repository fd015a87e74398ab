package io.dupguard.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.lock.Lease;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Any valid lock name is a lock of its own, whatever ZooKeeper allows in a path. */
class ZooKeeperLockNamesIT {
    private static TestingServer server;
    private static CuratorFramework clientA;
    private static CuratorFramework clientB;
    private static ZooKeeperLockProvider machineA;
    private static ZooKeeperLockProvider machineB;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        server = ZooKeeperFixtures.startServer();
        clientA = ZooKeeperFixtures.client(server, ZooKeeperFixtures.SESSION);
        clientB = ZooKeeperFixtures.client(server, ZooKeeperFixtures.SESSION);
        machineA = ZooKeeperLockProvider.create(clientA);
        machineB = ZooKeeperLockProvider.builder(clientB).build();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        machineA.close();
        machineB.close();
        clientA.close();
        clientB.close();
        server.close();
    }

    @Test
    void namesThatAreNoValidPathsLockLikeAnyOther() {
        String run = Long.toHexString(ThreadLocalRandom.current().nextLong());
        List<String> names = List.of(
                "orders/2024/42 " + run,
                "/leading/and/trailing/ " + run,
                "übung ✓ 🔒 " + run,
                "%2F" + run,
                "zookeeper" + run,
                ".");
        for (String name : names) {
            try (Lease held = machineA.tryAcquire(name).orElseThrow()) {
                assertThat(held.name()).isEqualTo(name);
                assertThat(machineB.tryAcquire(name)).as(name).isEmpty();
            }
            try (Lease next = machineB.tryAcquire(name).orElseThrow()) {
                assertThat(next.isHeld()).isTrue();
            }
        }
    }

    @Test
    void namesThatEncodeAlikeNeverShareALock() {
        String run = Long.toHexString(ThreadLocalRandom.current().nextLong());
        List<String> lookalikes = List.of("a/b" + run, "a%2Fb" + run, "a%252Fb" + run, "a b" + run, "a+b" + run);
        List<Lease> held = lookalikes.stream()
                .map(n -> machineA.tryAcquire(n).orElseThrow())
                .toList();
        held.forEach(Lease::close);
        try (Lease dot = machineA.tryAcquire(".").orElseThrow();
                Lease dots = machineA.tryAcquire("..").orElseThrow();
                Lease three = machineA.tryAcquire("...").orElseThrow()) {
            assertThat(dot.isHeld() && dots.isHeld() && three.isHeld()).isTrue();
        }
    }

    @Test
    void locksLiveUnderTheConfiguredBasePath() throws Exception {
        try (ZooKeeperLockProvider custom = ZooKeeperLockProvider.builder(clientA)
                        .basePath("/apps/billing/locks")
                        .build();
                Lease lease = custom.tryAcquire("invoice/7").orElseThrow()) {
            assertThat(clientB.getChildren().forPath("/apps/billing/locks/invoice%2F7"))
                    .hasSize(1);
            // Another base path is another lock space.
            assertThat(machineB.tryAcquire("invoice/7")).hasValueSatisfying(Lease::close);
            assertThat(lease.isHeld()).isTrue();
        }
    }
}

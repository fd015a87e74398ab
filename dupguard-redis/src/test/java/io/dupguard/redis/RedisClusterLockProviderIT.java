package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.test.AbstractLockProviderContractTest;
import io.dupguard.test.StoreOutage;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The lock contract on a real 3-master Redis Cluster, each "machine" with its own client; plus
 * where a lock's keys land and that a release wakes a waiter through another node.
 */
@Execution(ExecutionMode.CONCURRENT) // in the Cluster lane: see Lanes
@ResourceLock(Lanes.CLUSTER)
class RedisClusterLockProviderIT extends AbstractLockProviderContractTest {
    private static final RedisClusterClient[] CLIENTS = new RedisClusterClient[3];
    private static final RedisLockProvider[] MACHINES = new RedisLockProvider[3];

    @BeforeAll
    static void connect() {
        for (int i = 0; i < 3; i++) {
            CLIENTS[i] = RedisFixtures.clusterClient();
            MACHINES[i] = RedisLockProvider.create(CLIENTS[i]);
        }
    }

    @AfterAll
    static void shutdown() {
        for (int i = 0; i < 3; i++) {
            MACHINES[i].close();
            CLIENTS[i].shutdown();
        }
    }

    /** Clients with a short timeout; the outage pauses every master of the real cluster. */
    @Override
    protected StoreOutage.Fixture<LockProvider> outageFixture() {
        return new StoreOutage.Fixture<>(
                IMPATIENT[0], IMPATIENT[1], d -> RedisFixtures.pauseAll(RedisFixtures.clusterSeeds(), d));
    }

    private static final RedisClusterClient[] IMPATIENT_CLIENTS = new RedisClusterClient[2];
    private static final RedisLockProvider[] IMPATIENT = new RedisLockProvider[2];

    @BeforeAll
    static void connectImpatient() {
        for (int i = 0; i < 2; i++) {
            IMPATIENT_CLIENTS[i] = RedisFixtures.impatientClusterClient();
            IMPATIENT[i] = RedisLockProvider.create(IMPATIENT_CLIENTS[i]);
        }
    }

    @AfterAll
    static void shutdownImpatient() {
        for (int i = 0; i < 2; i++) {
            IMPATIENT[i].close();
            IMPATIENT_CLIENTS[i].shutdown();
        }
    }

    @Override
    protected LockProvider provider() {
        return MACHINES[0];
    }

    @Override
    protected LockProvider machine(int i) {
        return MACHINES[i];
    }

    @Test
    void allKeysOfALockShareOneSlotWhateverBracesTheNameHas() {
        RedisLockProvider locks = MACHINES[0];
        Set<String> nodes = new HashSet<>();
        List<String> names = new ArrayList<>(List.of("}x", "\\}x", "\\", "a{b}c", "{", "}", "a}"));
        for (int i = 0; i < 30; i++) {
            names.add("order-" + i);
        }
        Set<String> lockKeys = new HashSet<>();
        try (StatefulRedisClusterConnection<String, String> raw = CLIENTS[0].connect()) {
            for (String n : names) {
                String name = n + name(""); // the special characters first, where they matter

                String key = locks.lockKey(name);
                int slot = SlotHash.getSlot(key);
                assertThat(SlotHash.getSlot(key + ":fence")).isEqualTo(slot);
                assertThat(SlotHash.getSlot(key + ":waiters")).isEqualTo(slot);
                assertThat(lockKeys.add(key)).isTrue();
                // A multi-key script over keys in different slots would fail with CROSSSLOT.
                try (Lease lease = locks.tryAcquire(name).orElseThrow()) {
                    assertThat(machine(1).tryAcquire(name)).isEmpty();
                    RedisClusterNode node = raw.getPartitions().getPartitionBySlot(slot);
                    assertThat(raw.getConnection(node.getNodeId()).sync().exists(key, key + ":fence"))
                            .isEqualTo(2L);
                    nodes.add(node.getNodeId());
                }
            }
        }
        assertThat(nodes).hasSizeGreaterThan(1);
    }

    @Test
    void aReleaseWakesAWaiterWhoseSubscriptionIsOnAnotherNode() throws Exception {
        String name = name("wake");
        Lease held = MACHINES[0].tryAcquire(name).orElseThrow();
        LockOptions slowPoll = LockOptions.custom()
                .waitTime(Duration.ofSeconds(60))
                .retryInterval(Duration.ofSeconds(20), Duration.ofSeconds(20))
                .build();
        CountDownLatch acquired = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Long> waiter = pool.submit(() -> {
                try (Lease lease = MACHINES[1].acquire(name, slowPoll)) {
                    acquired.countDown();
                    return lease.fencingToken();
                }
            });
            await().atMost(Duration.ofSeconds(20)).until(() -> MACHINES[1].listensFor(name));

            held.close();

            // The poll is 20 s away: only the PUBLISH, broadcast across the cluster, gets it here.
            assertThat(acquired.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(waiter.get()).isGreaterThan(held.fencingToken());
        } finally {
            pool.shutdownNow();
        }
    }
}

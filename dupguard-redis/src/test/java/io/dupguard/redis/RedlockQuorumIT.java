package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.StoreUnavailableException;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockUnavailableException;
import io.dupguard.test.ExpectedWarnings;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Redlock on three private redis-servers that the tests kill, pause and tamper with, so the shared
 * 7100–7102 nodes other tests use are never disturbed.
 */
@Execution(ExecutionMode.CONCURRENT) // in the Redlock lane: see Lanes
@ResourceLock(Lanes.REDLOCK)
@ExpectedWarnings("Lettuce logs failed reconnects to the Redlock nodes the test stops")
class RedlockQuorumIT {
    private static final LockKeys KEYS = new LockKeys(RedlockProvider.DEFAULT_KEY_PREFIX);

    private final List<ThrowawayRedis> servers = new ArrayList<>();
    private final List<StatefulRedisConnection<String, String>> admin = new ArrayList<>();
    private RedisClient adminClient;
    private RedisClient otherClient;
    private RedlockProvider locks; // owns its client, which fails commands to a down node at once
    private RedlockProvider other; // the caller's client, which queues them: they time out instead
    private String name;

    @BeforeEach
    void start() throws Exception {
        List<RedisURI> uris = new ArrayList<>();
        adminClient = RedisClient.create();
        for (int i = 0; i < 3; i++) {
            ThrowawayRedis server = new ThrowawayRedis();
            servers.add(server);
            uris.add(RedisFixtures.uri(server.url()));
            admin.add(adminClient.connect(uris.get(i)));
        }
        locks = RedlockProvider.builder(uris)
                .nodeTimeout(RedlockProviderIT.NODE_TIMEOUT)
                .build();
        otherClient = RedisClient.create();
        other = RedlockProvider.builder(otherClient, uris)
                .nodeTimeout(RedlockProviderIT.NODE_TIMEOUT)
                .build();
        name = "q-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    @AfterEach
    void stop() throws Exception {
        locks.close();
        other.close();
        otherClient.shutdown();
        adminClient.shutdown();
        for (ThrowawayRedis server : servers) {
            server.close();
        }
    }

    private RedisCommands<String, String> node(int i) {
        return admin.get(i).sync();
    }

    private long lockKeysOn(int... nodes) {
        long n = 0;
        for (int i : nodes) {
            n += node(i).exists(KEYS.lock(name));
        }
        return n;
    }

    @Test
    void holdsWithOneOfThreeNodesDown() throws Exception {
        servers.get(2).kill();

        try (Lease lease = locks.tryAcquire(name).orElseThrow()) {
            assertThat(lockKeysOn(0, 1)).isEqualTo(2);
            assertThat(other.tryAcquire(name)).isEmpty();
            // Two refusals and one dead node is contention, not an outage, whichever answers first.
            try (RedlockProvider third = RedlockProvider.builder(uris(Duration.ofSeconds(2)))
                    .nodeTimeout(RedlockProviderIT.NODE_TIMEOUT)
                    .build()) {
                LockOptions briefly =
                        LockOptions.custom().waitTime(Duration.ofMillis(300)).build();
                assertThatThrownBy(() -> third.acquire(name, briefly)).isInstanceOf(LockUnavailableException.class);
            }
            assertThat(lease.isHeld()).isTrue();
            assertThat(lease.extend(Duration.ofSeconds(20))).isTrue();
        }
        assertThat(lockKeysOn(0, 1)).isZero();
        try (Lease next = other.tryAcquire(name).orElseThrow()) {
            assertThat(next.isHeld()).isTrue();
        }
    }

    @Test
    void refusesWithTwoOfThreeNodesDownAndLeavesNothingOnTheNodeThatAccepted() throws Exception {
        // Connected first, so that one client rejects commands to the dead nodes and the other
        // queues them until the node timeout: both must refuse.
        locks.tryAcquire(name).orElseThrow().close();
        other.tryAcquire(name).orElseThrow().close();
        servers.get(1).kill();
        servers.get(2).kill();

        for (RedlockProvider provider : List.of(locks, other)) {
            assertThatThrownBy(() -> provider.tryAcquire(name))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("of 3 nodes answered (quorum 2 of 3)")
                    .hasMessageContaining(servers.get(1).url().substring("redis://".length()));
            LockOptions waiting =
                    LockOptions.custom().waitTime(Duration.ofSeconds(2)).build();
            assertThatThrownBy(() -> provider.acquire(name, waiting)).isInstanceOf(StoreUnavailableException.class);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> lockKeysOn(0) == 0);
    }

    @Test
    void aRefusedAttemptIsReleasedOnTheNodesThatAccepted() {
        SetArgs thirtySeconds = SetArgs.Builder.px(30_000);
        node(1).set(KEYS.lock(name), "someone-else", thirtySeconds);
        node(2).set(KEYS.lock(name), "someone-else", thirtySeconds);

        assertThat(locks.tryAcquire(name)).isEmpty();

        await().atMost(Duration.ofSeconds(10)).until(() -> lockKeysOn(0) == 0);
        assertThat(node(1).get(KEYS.lock(name))).isEqualTo("someone-else");
        // One foreign key alone leaves a majority free.
        node(1).del(KEYS.lock(name));
        try (Lease lease = locks.tryAcquire(name).orElseThrow()) {
            assertThat(lockKeysOn(0, 1)).isEqualTo(2);
        }
    }

    @Test
    void anAcquisitionThatUsedUpTheLeaseIsRefusedAndReleasedEverywhere() {
        // Drift allowance 2 s of the 4 s lease; two nodes answer after 2.5 s: no validity left.
        RedlockProvider patient = RedlockProvider.builder(otherClient, uris(Duration.ofSeconds(10)))
                .nodeTimeout(Duration.ofSeconds(10))
                .clockDriftFactor(0.5)
                .build();
        try {
            patient.tryAcquire(name + "-connect").orElseThrow().close(); // a paused node answers no handshake
            node(0).clientPause(2_500);
            node(1).clientPause(2_500);
            LockOptions fourSeconds =
                    LockOptions.custom().leaseTime(Duration.ofSeconds(4)).build();

            assertThatThrownBy(() -> patient.tryAcquire(name, fourSeconds))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("leaving no validity");
            // Released, not expired: the keys set at 2.5 s would live until 6.5 s.
            await().atMost(Duration.ofSeconds(3)).until(() -> lockKeysOn(0, 1, 2) == 0);
        } finally {
            patient.close();
        }
    }

    @Test
    void aNodeThatDoesNotAnswerDelaysAcquisitionNoLongerThanAMajorityTakes() {
        RedlockProvider patient = RedlockProvider.builder(otherClient, uris(Duration.ofSeconds(30)))
                .nodeTimeout(Duration.ofSeconds(20))
                .build();
        try {
            patient.tryAcquire(name + "-connect").orElseThrow().close(); // a paused node answers no handshake
            node(2).clientPause(8_000);
            long start = System.nanoTime();

            Lease lease = patient.tryAcquire(name).orElseThrow();
            assertThat(lease.isHeld()).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            // Release waits for every node (up to the node timeout), so the paused one is cleaned too.
            lease.close();
            assertThat(lockKeysOn(0, 1, 2)).isZero();
        } finally {
            patient.close();
        }
    }

    @Test
    void tokensIncreaseEvenWhenTheNodesCountersDisagree() throws Exception {
        servers.get(2).kill(); // so that both remaining nodes, with their different counters, must agree
        // Node 0 is far ahead (it saw acquisitions the others missed); node 1 is not.
        long ahead = System.currentTimeMillis() * 1000 + 10_000_000_000_000L;
        node(0).set(KEYS.fence(name), Long.toString(ahead));

        long first;
        try (Lease lease = locks.tryAcquire(name).orElseThrow()) {
            first = lease.fencingToken();
        }
        assertThat(first).isEqualTo(ahead + 1);
        // Written back before success: the lagging node now holds at least the token handed out.
        assertThat(Long.parseLong(node(1).get(KEYS.fence(name)))).isGreaterThanOrEqualTo(first);
        assertThat(node(1).ttl(KEYS.fence(name))).isEqualTo(-1L);

        // The node that was ahead is lost and the third comes back empty: node 1 carries the order.
        servers.get(0).kill();
        servers.get(2).start();
        try (Lease lease = other.tryAcquire(name).orElseThrow()) {
            assertThat(lease.fencingToken()).isGreaterThan(first);
        }
    }

    /** The nodes, with a command timeout longer than the pauses (else Lettuce gives up first). */
    private List<RedisURI> uris(Duration commandTimeout) {
        return servers.stream()
                .map(s -> RedisURI.builder(RedisURI.create(s.url()))
                        .withTimeout(commandTimeout)
                        .build())
                .toList();
    }
}

package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.lock.Lease;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code replicaAcks} on a Redis Cluster whose three masters have a replica each (7300-7305 of
 * {@code scripts/services}, {@link RedisFixtures#replicaClusterSeeds()}): the {@code WAIT} goes to the
 * node owning the key's slot, and an acknowledged claim, result, lock, token and throttle window is
 * on that node's replica when the call returns. With the replicas paused ({@code CLIENT PAUSE …
 * WRITE}: they stop applying the replication stream, the cluster bus goes on), a claim fails without
 * running the work and a lock is refused, and both leave the key free for the next caller. Every
 * pause is ended in a finally block.
 */
@Execution(ExecutionMode.CONCURRENT) // in the replica Cluster lane: see Lanes
@ResourceLock(Lanes.REPLICA_CLUSTER)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisReplicaClusterAcksIT {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration REPLICA_PAUSE = Duration.ofSeconds(5); // a bound: ended in a finally block
    private static final Duration ACK_TIMEOUT = Duration.ofMillis(500);

    private final RedisClusterClient acked = RedisClusterClient.create(RedisFixtures.replicaClusterSeeds());
    private final RedisClusterClient plain = RedisClusterClient.create(RedisFixtures.replicaClusterSeeds());
    private final String scope =
            "cluster-acks-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    private final RedisClient direct = RedisClient.create();
    private List<RedisURI> replicas;
    private List<StatefulRedisConnection<String, String>> onReplicas;
    // made once: each store connects to every master (and checks its eviction policy)
    private RedisIdempotencyStore store;
    private RedisIdempotencyStore otherStore;
    private RedisLockProvider locks;
    private RedisLockProvider otherLocks;

    @BeforeAll
    void everyMasterHasAReplica() {
        List<RedisClusterNode> nodes = List.copyOf(plain.getPartitions().getPartitions());
        assertThat(nodes.stream().filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM)))
                .as("masters of %s", RedisFixtures.replicaClusterSeeds())
                .hasSize(3)
                .allSatisfy(m -> assertThat(nodes.stream()
                                .filter(n -> m.getNodeId().equals(n.getSlaveOf()))
                                .count())
                        .as("replicas of %s", m.getUri())
                        .isEqualTo(1));
        replicas = nodes.stream()
                .filter(n -> n.is(RedisClusterNode.NodeFlag.REPLICA))
                .map(RedisClusterNode::getUri)
                .toList();
        onReplicas = replicas.stream()
                .map(r -> {
                    StatefulRedisConnection<String, String> c =
                            direct.connect(RedisFixtures.uri("redis://" + r.getHost() + ":" + r.getPort()));
                    c.sync().readOnly();
                    return c;
                })
                .toList();
        store = RedisIdempotencyStore.builder(acked).replicaAcks(1, ACK_TIMEOUT).build();
        otherStore = RedisIdempotencyStore.create(plain);
        locks = RedisLockProvider.builder(acked).replicaAcks(1, ACK_TIMEOUT).build();
        otherLocks = RedisLockProvider.create(plain);
    }

    @AfterAll
    void shutdown() {
        for (AutoCloseable c : new AutoCloseable[] {store, otherStore, locks, otherLocks}) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        acked.shutdown();
        plain.shutdown();
        direct.shutdown();
    }

    @Test
    void everyAcknowledgedWriteIsOnTheReplicaOfTheNodeOwningItsSlot() {
        for (int i = 0; i < 3; i++) { // three slots, usually on more than one node
            IdempotencyKey key = IdempotencyKey.of(scope, "k" + i);
            assertThat(store.claim(key, Fingerprint.none(), "owner", LEASE)).isEqualTo(Claim.FRESH);
            assertThat(keysOnReplicas(scope + ":k" + i))
                    .as("the claim, on a replica")
                    .isOne();
            store.complete(key, "owner", RecordStatus.COMPLETED, "done".getBytes(StandardCharsets.UTF_8), LEASE);
            assertThat(otherStore.find(key))
                    .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.COMPLETED));

            String name = scope + "-lock-" + i;
            Optional<Lease> lease = locks.tryAcquire(name);
            assertThat(lease).isPresent();
            assertThat(keysOnReplicas(name)).as("the lock, on a replica").isOne();
            lease.get().close();
        }
        try (RedisSubmissionTokens tokens = RedisSubmissionTokens.builder(acked)
                        .replicaAcks(1, ACK_TIMEOUT)
                        .build();
                RedisSubmitThrottle throttle = RedisSubmitThrottle.builder(acked)
                        .replicaAcks(1, ACK_TIMEOUT)
                        .build()) {
            RedisReplicaAcksIT.tokensAndWindowsCount(tokens, throttle, scope);
        }
    }

    @Test
    void withTheReplicasPausedAClaimRunsNothingALockIsRefusedAndBothLeaveTheKeyFree() {
        AtomicInteger runs = new AtomicInteger();
        withReplicasPaused(() -> {
            RedisReplicaAcksIT.claimFailsRunningNothingAndLeavesTheKeyFree(
                    store, otherStore, IdempotencyKey.of(scope, "paused"), runs, "500 ms");
            RedisReplicaAcksIT.lockIsRefusedAndFree(locks, otherLocks, scope + "-paused-lock");
        });
        assertThat(runs).hasValue(0);
    }

    /** How many keys ending in {@code {tag}} the replicas hold (read-only connections, {@code KEYS}). */
    private long keysOnReplicas(String tag) {
        return onReplicas.stream()
                .mapToLong(c -> c.sync().keys("*{" + tag + "}").size())
                .sum();
    }

    private void withReplicasPaused(Runnable test) {
        SentinelRedis.withReplicasPaused(replicas, REPLICA_PAUSE, test);
    }
}

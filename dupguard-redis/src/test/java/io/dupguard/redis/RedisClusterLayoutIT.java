package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.RecordStatus;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** Where records land on a real Redis Cluster. */
@Execution(ExecutionMode.CONCURRENT) // in the Cluster lane: see Lanes
@ResourceLock(Lanes.CLUSTER)
class RedisClusterLayoutIT {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static RedisClusterClient client;
    private static StatefulRedisClusterConnection<String, byte[]> raw;
    private static RedisIdempotencyStore store;

    private String scope;

    @BeforeAll
    static void connect() {
        client = RedisFixtures.clusterClient();
        raw = client.connect(RedisConnector.CODEC);
        store = RedisIdempotencyStore.create(client);
    }

    @AfterAll
    static void shutdown() {
        store.close();
        raw.close();
        client.shutdown();
    }

    @BeforeEach
    void newScope() {
        scope = "cl-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    @Test
    void eachRecordLivesInTheSlotOfItsHashTagOnTheNodeServingIt() {
        Set<String> nodes = new HashSet<>();
        for (int i = 0; i < 60; i++) {
            IdempotencyKey key = IdempotencyKey.of(scope, "order-" + i);
            assertThat(store.claim(key, Fingerprint.none(), "o", LEASE)).isEqualTo(Claim.FRESH);

            String name = store.redisKey(key);
            int slot = SlotHash.getSlot(name);
            assertThat(slot).isEqualTo(SlotHash.getSlot(scope + ":order-" + i));
            RedisClusterNode node = raw.getPartitions().getPartitionBySlot(slot);
            // Asked directly (no redirect), the node serving the slot holds the record.
            assertThat(raw.getConnection(node.getNodeId()).sync().exists(name)).isOne();
            nodes.add(node.getNodeId());
        }
        // Hash-tagging scope and key together spreads records over the masters.
        assertThat(nodes).hasSizeGreaterThan(1);
    }

    @Test
    void keysWithBracesAndColonsRoundTrip() {
        IdempotencyKey odd = IdempotencyKey.of(scope, "a}b{c:d}");
        store.claim(odd, Fingerprint.ofString("x"), "o", LEASE);
        store.complete(odd, "o", RecordStatus.COMPLETED, new byte[] {42}, LEASE);

        assertThat(store.find(odd)).hasValueSatisfying(r -> {
            assertThat(r.key()).isEqualTo(odd);
            assertThat(r.payload()).containsExactly(42);
        });
        assertThat(store.find(IdempotencyKey.of(scope, "a"))).isEmpty();
    }
}

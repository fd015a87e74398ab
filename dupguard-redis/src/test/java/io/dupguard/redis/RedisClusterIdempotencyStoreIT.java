package io.dupguard.redis;

import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.test.AbstractIdempotencyStoreContractTest;
import io.dupguard.test.StoreOutage;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The idempotency store contract on a real 3-master Redis Cluster. */
@Execution(ExecutionMode.CONCURRENT) // in the Cluster lane: see Lanes
@ResourceLock(Lanes.CLUSTER)
class RedisClusterIdempotencyStoreIT extends AbstractIdempotencyStoreContractTest {
    private static RedisClusterClient client;
    private static RedisClusterClient otherMachine;
    private static RedisClusterClient dead;
    private static RedisIdempotencyStore store;
    private static RedisIdempotencyStore otherStore;
    private static RedisIdempotencyStore deadStore;

    @BeforeAll
    static void connect() {
        client = RedisFixtures.clusterClient();
        otherMachine = RedisFixtures.clusterClient();
        dead = RedisFixtures.deadClusterClient();
        store = RedisIdempotencyStore.create(client);
        otherStore = RedisIdempotencyStore.create(otherMachine);
        deadStore = RedisIdempotencyStore.create(dead);
        // Open both connections now: on a loaded machine the cluster's connect (topology, a node
        // connection and an eviction check per master) can outlast a short test's 1 s lease,
        // which counts from before the first claim.
        store.find(IdempotencyKey.of("warmup", "k"));
        otherStore.find(IdempotencyKey.of("warmup", "k"));
    }

    @AfterAll
    static void shutdown() {
        store.close();
        otherStore.close();
        deadStore.close();
        client.shutdown();
        otherMachine.shutdown();
        dead.shutdown();
    }

    private static RedisClusterClient impatientA;
    private static RedisClusterClient impatientB;
    private static RedisIdempotencyStore impatientStoreA;
    private static RedisIdempotencyStore impatientStoreB;

    @BeforeAll
    static void connectImpatient() {
        impatientA = RedisFixtures.impatientClusterClient();
        impatientB = RedisFixtures.impatientClusterClient();
        impatientStoreA = RedisIdempotencyStore.create(impatientA);
        impatientStoreB = RedisIdempotencyStore.create(impatientB);
    }

    @AfterAll
    static void shutdownImpatient() {
        impatientStoreA.close();
        impatientStoreB.close();
        impatientA.shutdown();
        impatientB.shutdown();
    }

    /** Clients with a short timeout; the outage pauses every master of the real cluster. */
    @Override
    protected StoreOutage.Fixture<IdempotencyStore> outageFixture() {
        return new StoreOutage.Fixture<>(
                impatientStoreA, impatientStoreB, d -> RedisFixtures.pauseAll(RedisFixtures.clusterSeeds(), d));
    }

    @Override
    protected IdempotencyStore store() {
        return store;
    }

    @Override
    protected IdempotencyStore otherMachineStore() {
        return otherStore;
    }

    @Override
    protected IdempotencyStore unreachableStore() {
        return deadStore;
    }
}

package io.dupguard.redis;

import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.test.AbstractIdempotencyStoreContractTest;
import io.dupguard.test.StoreOutage;
import io.lettuce.core.RedisClient;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The idempotency store contract on the Sentinel-managed master ({@link SentinelRedis}), found
 * through the Sentinels; {@link RedisSentinelAckedIdempotencyStoreIT} runs it with replica
 * acknowledgements. The outage cases pause a private master with one replica instead.
 */
@Execution(ExecutionMode.CONCURRENT) // in the Sentinel lane: see Lanes
@ResourceLock(Lanes.SENTINEL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisSentinelIdempotencyStoreIT extends AbstractIdempotencyStoreContractTest {
    private final RedisClient client = SentinelRedis.client();
    private final RedisClient otherMachine = SentinelRedis.client();
    private final RedisClient dead = SentinelRedis.deadClient();
    private SentinelRedis.PrivatePair pausable;
    private RedisClient pausableA;
    private RedisClient pausableB;
    private IdempotencyStore store;
    private IdempotencyStore otherStore;
    private IdempotencyStore deadStore;
    private StoreOutage.Fixture<IdempotencyStore> outage;

    /** The options under test on top of a builder; {@code replicas} is how many the server has. */
    RedisIdempotencyStore.Builder options(RedisIdempotencyStore.Builder builder, int replicas, Duration timeout) {
        return builder;
    }

    @BeforeAll
    void connect() throws IOException {
        store = on(client);
        otherStore = on(otherMachine);
        deadStore = on(dead);
        pausable = new SentinelRedis.PrivatePair();
        pausableA = RedisFixtures.impatientClient(pausable.master.url());
        pausableB = RedisFixtures.impatientClient(pausable.master.url());
        outage = new StoreOutage.Fixture<>(onPausable(pausableA), onPausable(pausableB), pausable.master::pause);
    }

    @AfterAll
    void shutdown() throws Exception {
        for (RedisClient c : new RedisClient[] {client, otherMachine, dead, pausableA, pausableB}) {
            c.shutdown();
        }
        pausable.close();
    }

    private IdempotencyStore on(RedisClient c) {
        return options(RedisIdempotencyStore.builder(c), 2, Duration.ofSeconds(1))
                .build();
    }

    // Below the impatient clients' 300 ms command timeout.
    private IdempotencyStore onPausable(RedisClient c) {
        return options(RedisIdempotencyStore.builder(c), 1, Duration.ofMillis(200))
                .build();
    }

    @Override
    protected StoreOutage.Fixture<IdempotencyStore> outageFixture() {
        return outage;
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

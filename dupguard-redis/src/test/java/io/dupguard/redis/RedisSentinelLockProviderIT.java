package io.dupguard.redis;

import io.dupguard.lock.LockProvider;
import io.dupguard.test.AbstractLockProviderContractTest;
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
 * The lock contract on the Sentinel-managed master ({@link SentinelRedis}), each "machine" with its
 * own client; {@link RedisSentinelAckedLockProviderIT} runs it with replica acknowledgements. The
 * outage cases pause a private master with one replica (a 4 s pause of the Sentinel master would
 * make the Sentinels fail over).
 */
@Execution(ExecutionMode.CONCURRENT) // in the Sentinel lane: see Lanes
@ResourceLock(Lanes.SENTINEL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisSentinelLockProviderIT extends AbstractLockProviderContractTest {
    private final RedisClient[] clients = new RedisClient[5];
    private final RedisLockProvider[] machines = new RedisLockProvider[5];
    private SentinelRedis.PrivatePair pausable;

    /** The options under test on top of a builder; {@code replicas} is how many the server has. */
    RedisLockProvider.Builder options(RedisLockProvider.Builder builder, int replicas, Duration timeout) {
        return builder;
    }

    @BeforeAll
    void connect() throws IOException {
        pausable = new SentinelRedis.PrivatePair();
        for (int i = 0; i < 5; i++) {
            clients[i] = i < 3 ? SentinelRedis.client() : RedisFixtures.impatientClient(pausable.master.url());
            // Below the impatient clients' 300 ms command timeout.
            machines[i] = i < 3
                    ? options(RedisLockProvider.builder(clients[i]), 2, Duration.ofSeconds(1))
                            .build()
                    : options(RedisLockProvider.builder(clients[i]), 1, Duration.ofMillis(200))
                            .build();
        }
    }

    @AfterAll
    void shutdown() throws Exception {
        for (int i = 0; i < 5; i++) {
            machines[i].close();
            clients[i].shutdown();
        }
        pausable.close();
    }

    @Override
    protected StoreOutage.Fixture<LockProvider> outageFixture() {
        return new StoreOutage.Fixture<>(machines[3], machines[4], pausable.master::pause);
    }

    @Override
    protected LockProvider provider() {
        return machines[0];
    }

    @Override
    protected LockProvider machine(int i) {
        return machines[i];
    }
}

package io.dupguard.redis;

import io.dupguard.lock.LockProvider;
import io.dupguard.test.AbstractLockProviderContractTest;
import io.dupguard.test.StoreOutage;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The lock contract on three independent Redis servers (127.0.0.1:7100–7102); each "machine" has
 * its own client and connections to all three.
 */
@Execution(ExecutionMode.CONCURRENT) // in the Redlock lane: see Lanes
@ResourceLock(Lanes.REDLOCK)
class RedlockProviderIT extends AbstractLockProviderContractTest {
    // The default (min(50 ms, lease / 10)) is right for a quiet network; this machine has two cores
    // shared with other builds, where a scheduling hiccup of 40 ms is not a node failure.
    static final Duration NODE_TIMEOUT = Duration.ofMillis(250);

    private static final RedisClient[] CLIENTS = new RedisClient[3];

    /** The independent Redlock nodes ({@code scripts/services} starts them on 7100–7102). */
    static List<RedisURI> redlockNodes() {
        String nodes = System.getProperty(
                "dupguard.redis.redlock", "redis://127.0.0.1:7100,redis://127.0.0.1:7101,redis://127.0.0.1:7102");
        return Arrays.stream(nodes.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .map(RedisFixtures::uri)
                .toList();
    }

    private static final RedlockProvider[] MACHINES = new RedlockProvider[3];

    @BeforeAll
    static void connect() {
        for (int i = 0; i < 3; i++) {
            CLIENTS[i] = RedisClient.create();
            MACHINES[i] = RedlockProvider.builder(CLIENTS[i], redlockNodes())
                    .nodeTimeout(NODE_TIMEOUT)
                    .build();
        }
    }

    @AfterAll
    static void shutdown() {
        for (int i = 0; i < 3; i++) {
            MACHINES[i].close();
            CLIENTS[i].shutdown();
        }
    }

    /** The outage pauses every Redlock node: no quorum can answer. */
    @Override
    protected StoreOutage.Fixture<LockProvider> outageFixture() {
        return new StoreOutage.Fixture<>(MACHINES[0], MACHINES[1], d -> RedisFixtures.pauseAll(redlockNodes(), d));
    }

    @Override
    protected LockProvider provider() {
        return MACHINES[0];
    }

    @Override
    protected LockProvider machine(int i) {
        return MACHINES[i];
    }
}

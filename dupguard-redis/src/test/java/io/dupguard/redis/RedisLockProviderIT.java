package io.dupguard.redis;

import io.dupguard.lock.LockProvider;
import io.dupguard.test.AbstractLockProviderContractTest;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The lock contract on a real standalone Redis; each "machine" has its own client. */
class RedisLockProviderIT extends AbstractLockProviderContractTest {
    private static final RedisClient[] CLIENTS = new RedisClient[3];
    private static final RedisLockProvider[] MACHINES = new RedisLockProvider[3];

    @BeforeAll
    static void connect() {
        for (int i = 0; i < 3; i++) {
            CLIENTS[i] = RedisFixtures.standaloneClient();
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

    @Override
    protected LockProvider provider() {
        return MACHINES[0];
    }

    @Override
    protected LockProvider machine(int i) {
        return MACHINES[i];
    }
}

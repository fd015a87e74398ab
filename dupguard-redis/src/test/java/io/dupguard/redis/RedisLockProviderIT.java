package io.dupguard.redis;

import io.dupguard.lock.LockProvider;
import io.dupguard.test.AbstractLockProviderContractTest;
import io.dupguard.test.StoreOutage;
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

    private static ThrowawayRedis pausable;
    private static final RedisClient[] PAUSABLE_CLIENTS = new RedisClient[2];
    private static final RedisLockProvider[] PAUSABLE = new RedisLockProvider[2];

    /** A private server (pausing the shared one would stall other tests), two impatient clients. */
    @BeforeAll
    static void startPausable() throws Exception {
        pausable = new ThrowawayRedis();
        for (int i = 0; i < 2; i++) {
            PAUSABLE_CLIENTS[i] = RedisFixtures.impatientClient(pausable.url());
            PAUSABLE[i] = RedisLockProvider.create(PAUSABLE_CLIENTS[i]);
        }
    }

    @AfterAll
    static void stopPausable() throws Exception {
        for (int i = 0; i < 2; i++) {
            PAUSABLE[i].close();
            PAUSABLE_CLIENTS[i].shutdown();
        }
        pausable.close();
    }

    @Override
    protected StoreOutage.Fixture<LockProvider> outageFixture() {
        return new StoreOutage.Fixture<>(PAUSABLE[0], PAUSABLE[1], pausable::pause);
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

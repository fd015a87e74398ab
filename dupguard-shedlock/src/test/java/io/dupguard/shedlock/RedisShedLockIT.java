package io.dupguard.shedlock;

import io.dupguard.lock.LockProvider;
import io.dupguard.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The ShedLock suite on dupguard's Redis locks, each node on its own client. */
class RedisShedLockIT extends AbstractShedLockContractIT {
    private static final RedisClient[] CLIENTS = new RedisClient[2];
    private static final RedisLockProvider[] NODES = new RedisLockProvider[2];

    @BeforeAll
    static void connect() {
        for (int i = 0; i < 2; i++) {
            CLIENTS[i] = RedisClient.create(System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379"));
            NODES[i] = RedisLockProvider.create(CLIENTS[i]);
        }
    }

    @AfterAll
    static void closeAll() {
        for (int i = 0; i < 2; i++) {
            NODES[i].close();
            CLIENTS[i].shutdown();
        }
    }

    @Override
    protected LockProvider node(int i) {
        return NODES[i];
    }
}

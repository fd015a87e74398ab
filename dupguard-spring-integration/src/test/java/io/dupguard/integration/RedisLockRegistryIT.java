package io.dupguard.integration;

import io.dupguard.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;

/** The registry suite on dupguard's Redis locks; each node its own client. */
class RedisLockRegistryIT extends AbstractLockRegistryContractIT {
    @Override
    protected Node newNode() {
        RedisClient client = RedisClient.create(System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379"));
        RedisLockProvider locks = RedisLockProvider.create(client);
        return new Node(locks, () -> {
            locks.close();
            client.shutdown();
        });
    }

    @Override
    protected void close(Node node) {
        node.kill().run();
    }
}

package io.dupguard.docs;

import static io.dupguard.docs.DocFixtures.ACCOUNTS;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.redis.RedisLockProvider;
import io.dupguard.redis.RedlockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The snippets of docs/locks-redis.md. */
class LocksRedisSnippets {

    static void overview(Connection connection, long accountId, BigDecimal newBalance, long orderId)
            throws SQLException {
        // tag::overview[]
        // One Redis (standalone; RedisClusterClient works the same way)
        RedisClient client = RedisClient.create("redis://redis.internal:6379");
        RedisLockProvider locks = RedisLockProvider.builder(client)
                .keyPrefix("billing:lock:")              // default dupguard:lock:
                .build();                                // connects lazily, on first use

        try (Lease lease = locks.acquire("account:" + accountId, LockOptions.ofDefaults())) {
            ACCOUNTS.update(connection, accountId, lease.fencingToken(), "balance = ?", newBalance);
        }

        // Redlock over three independent servers (the provider creates and owns its client)
        RedlockProvider redlock = RedlockProvider.create(List.of(
                RedisURI.create("redis://10.0.0.1:6379"),
                RedisURI.create("redis://10.0.0.2:6379"),
                RedisURI.create("redis://10.0.0.3:6379")));
        Optional<Lease> lease = redlock.tryAcquire("order:" + orderId);
        // end::overview[]
    }

    static RedisLockProvider sentinel() {
        // tag::sentinel[]
        RedisClient client = RedisClient.create("redis-sentinel://s1:26379,s2:26379,s3:26379/0#mymaster");
        RedisLockProvider locks = RedisLockProvider.builder(client)
                .replicaAcks(2, Duration.ofSeconds(1))
                .build();
        // end::sentinel[]
        return locks;
    }
}

package io.dupguard.redis;

import java.time.Duration;

/** {@link RedisSentinelIdempotencyStoreIT} with every write acknowledged by all replicas. */
class RedisSentinelAckedIdempotencyStoreIT extends RedisSentinelIdempotencyStoreIT {
    @Override
    RedisIdempotencyStore.Builder options(RedisIdempotencyStore.Builder builder, int replicas, Duration timeout) {
        return builder.replicaAcks(replicas, timeout);
    }
}

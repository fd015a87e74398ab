package io.dupguard.redis;

import java.time.Duration;

/** {@link RedisSentinelLockProviderIT} with every acquisition and renewal acknowledged by all replicas. */
class RedisSentinelAckedLockProviderIT extends RedisSentinelLockProviderIT {
    @Override
    RedisLockProvider.Builder options(RedisLockProvider.Builder builder, int replicas, Duration timeout) {
        return builder.replicaAcks(replicas, timeout);
    }
}

package io.dupguard.redis;

import java.time.Duration;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** {@link RedisSentinelLockProviderIT} with every acquisition and renewal acknowledged by all replicas. */
@Execution(ExecutionMode.CONCURRENT) // in the Sentinel lane: see Lanes
@ResourceLock(Lanes.SENTINEL)
class RedisSentinelAckedLockProviderIT extends RedisSentinelLockProviderIT {
    @Override
    RedisLockProvider.Builder options(RedisLockProvider.Builder builder, int replicas, Duration timeout) {
        return builder.replicaAcks(replicas, timeout);
    }
}

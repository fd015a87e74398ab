package io.dupguard.redis;

import java.time.Duration;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** {@link RedisSentinelIdempotencyStoreIT} with every write acknowledged by all replicas. */
@Execution(ExecutionMode.CONCURRENT) // in the Sentinel lane: see Lanes
@ResourceLock(Lanes.SENTINEL)
class RedisSentinelAckedIdempotencyStoreIT extends RedisSentinelIdempotencyStoreIT {
    @Override
    RedisIdempotencyStore.Builder options(RedisIdempotencyStore.Builder builder, int replicas, Duration timeout) {
        return builder.replicaAcks(replicas, timeout);
    }
}

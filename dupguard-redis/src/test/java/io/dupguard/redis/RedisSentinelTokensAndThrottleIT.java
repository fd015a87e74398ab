package io.dupguard.redis;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@link RedisTokensAndThrottleIT} on the Sentinel-managed master ({@link SentinelRedis}), found
 * through the Sentinels; {@link RedisSentinelAckedTokensAndThrottleIT} adds replica
 * acknowledgements.
 */
@Execution(ExecutionMode.CONCURRENT) // in the Sentinel lane: see Lanes
@ResourceLock(Lanes.SENTINEL)
class RedisSentinelTokensAndThrottleIT extends RedisTokensAndThrottleIT {
    @Override
    RedisClient newClient() {
        return SentinelRedis.client();
    }
}

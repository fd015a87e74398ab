package io.dupguard.redis;

import io.lettuce.core.RedisClient;

/**
 * {@link RedisTokensAndThrottleIT} on the Sentinel-managed master ({@link SentinelRedis}), found
 * through the Sentinels; {@link RedisSentinelAckedTokensAndThrottleIT} adds replica
 * acknowledgements.
 */
class RedisSentinelTokensAndThrottleIT extends RedisTokensAndThrottleIT {
    @Override
    RedisClient newClient() {
        return SentinelRedis.client();
    }
}

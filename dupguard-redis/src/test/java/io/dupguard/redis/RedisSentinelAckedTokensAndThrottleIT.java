package io.dupguard.redis;

import io.lettuce.core.RedisClient;
import java.time.Duration;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** {@link RedisSentinelTokensAndThrottleIT} with every issue, consume and window acknowledged by both replicas. */
@Execution(ExecutionMode.CONCURRENT) // in the Sentinel lane: see Lanes
@ResourceLock(Lanes.SENTINEL)
class RedisSentinelAckedTokensAndThrottleIT extends RedisSentinelTokensAndThrottleIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    @Override
    RedisSubmissionTokens newTokens(RedisClient client) {
        return RedisSubmissionTokens.builder(client).replicaAcks(2, TIMEOUT).build();
    }

    @Override
    RedisSubmitThrottle newThrottle(RedisClient client) {
        return RedisSubmitThrottle.builder(client).replicaAcks(2, TIMEOUT).build();
    }
}

package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.lock.LockProvider;
import io.dupguard.redis.EvictionPolicyCheck;
import io.dupguard.redis.RedisIdempotencyStore;
import io.dupguard.redis.RedisLockProvider;
import io.dupguard.redis.RedisSubmissionTokens;
import io.dupguard.redis.RedisSubmitThrottle;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** dupguard.store=redis: every store on the Redis that spring.data.redis.* describes. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = {OnDupguardStoreCondition.REDIS_STORE, OnDupguardStoreCondition.REDIS_DETAILS})
@ConditionalOnDupguardStore(DupguardProperties.StoreType.REDIS)
class RedisStoreConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DupguardRedisConnection dupguardRedisConnection(
            ObjectProvider<DataRedisConnectionDetails> details, ObjectProvider<DataRedisProperties> properties) {
        DataRedisConnectionDetails d = details.getIfAvailable();
        if (d == null) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.store", "redis", "no Redis connection details (spring.data.redis.*) are configured");
        }
        DataRedisProperties p = properties.getIfAvailable();
        Duration timeout = p == null ? null : p.getTimeout();
        return DupguardRedisConnection.from(d, timeout);
    }

    private static EvictionPolicyCheck eviction(DupguardProperties p) {
        return EvictionPolicyCheck.valueOf(p.getRedis().getEvictionPolicyCheck().name());
    }

    @Bean
    @ConditionalOnMissingBean(IdempotencyStore.class)
    RedisIdempotencyStore dupguardIdempotencyStore(DupguardRedisConnection redis, DupguardProperties p) {
        String prefix = p.getRedis().getIdempotencyKeyPrefix();
        return InvalidDupguardPropertyException.check("dupguard.redis.idempotency-key-prefix", prefix, () -> {
            RedisIdempotencyStore.Builder b = redis.isCluster()
                    ? RedisIdempotencyStore.builder((RedisClusterClient) redis.client())
                    : RedisIdempotencyStore.builder((RedisClient) redis.client(), redis.uri());
            return b.keyPrefix(prefix).evictionPolicyCheck(eviction(p)).build();
        });
    }

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    RedisLockProvider dupguardLockProvider(DupguardRedisConnection redis, DupguardProperties p) {
        String prefix = p.getRedis().getLockKeyPrefix();
        return InvalidDupguardPropertyException.check("dupguard.redis.lock-key-prefix", prefix, () -> {
            RedisLockProvider.Builder b = redis.isCluster()
                    ? RedisLockProvider.builder((RedisClusterClient) redis.client())
                    : RedisLockProvider.builder((RedisClient) redis.client(), redis.uri());
            return b.keyPrefix(prefix).evictionPolicyCheck(eviction(p)).build();
        });
    }

    @Bean
    @ConditionalOnMissingBean(SubmissionTokens.class)
    SubmissionTokens dupguardSubmissionTokens(DupguardRedisConnection redis) {
        return redis.isCluster()
                ? RedisSubmissionTokens.create((RedisClusterClient) redis.client())
                : RedisSubmissionTokens.create(redis.uriBoundClient());
    }

    @Bean
    @ConditionalOnMissingBean(SubmitThrottle.class)
    SubmitThrottle dupguardSubmitThrottle(DupguardRedisConnection redis) {
        return redis.isCluster()
                ? RedisSubmitThrottle.create((RedisClusterClient) redis.client())
                : RedisSubmitThrottle.create(redis.uriBoundClient());
    }
}

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

    /** Applies dupguard.redis.replica-acks to a builder, naming the property of a bad value. */
    private static void replicaAcks(DupguardProperties p, java.util.function.BiConsumer<Integer, Duration> builder) {
        int acks = p.getRedis().getReplicaAcks();
        if (acks < 0) {
            throw new InvalidDupguardPropertyException("dupguard.redis.replica-acks", acks, "must be 0 (off) or more");
        }
        if (acks > 0) {
            InvalidDupguardPropertyException.check(
                    "dupguard.redis.replica-acks-timeout", p.getRedis().getReplicaAcksTimeout(), () -> {
                        builder.accept(acks, p.getRedis().getReplicaAcksTimeout());
                        return null;
                    });
        }
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
            replicaAcks(p, b::replicaAcks);
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
            replicaAcks(p, b::replicaAcks);
            return b.keyPrefix(prefix).evictionPolicyCheck(eviction(p)).build();
        });
    }

    @Bean
    @ConditionalOnMissingBean(SubmissionTokens.class)
    SubmissionTokens dupguardSubmissionTokens(DupguardRedisConnection redis, DupguardProperties p) {
        RedisSubmissionTokens.Builder b = redis.isCluster()
                ? RedisSubmissionTokens.builder((RedisClusterClient) redis.client())
                : RedisSubmissionTokens.builder(redis.uriBoundClient());
        replicaAcks(p, b::replicaAcks);
        return b.build();
    }

    @Bean
    @ConditionalOnMissingBean(SubmitThrottle.class)
    SubmitThrottle dupguardSubmitThrottle(DupguardRedisConnection redis, DupguardProperties p) {
        RedisSubmitThrottle.Builder b = redis.isCluster()
                ? RedisSubmitThrottle.builder((RedisClusterClient) redis.client())
                : RedisSubmitThrottle.builder(redis.uriBoundClient());
        replicaAcks(p, b::replicaAcks);
        return b.build();
    }
}

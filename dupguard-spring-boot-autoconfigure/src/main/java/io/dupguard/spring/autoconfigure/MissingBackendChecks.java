package io.dupguard.spring.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Configuration;

/** Fails start-up when dupguard.store names a backend whose module is not on the classpath. */
final class MissingBackendChecks {
    private MissingBackendChecks() {}

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass(OnDupguardStoreCondition.JDBC_STORE)
    @ConditionalOnDupguardStore(DupguardProperties.StoreType.JDBC)
    static class Jdbc {
        Jdbc() {
            throw new InvalidDupguardPropertyException(
                    "dupguard.store", "jdbc", "io.dupguard:dupguard-jdbc must be on the classpath");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass(OnDupguardStoreCondition.REDIS_STORE)
    @ConditionalOnDupguardStore(DupguardProperties.StoreType.REDIS)
    static class RedisModule {
        RedisModule() {
            throw new InvalidDupguardPropertyException(
                    "dupguard.store", "redis", "io.dupguard:dupguard-redis must be on the classpath");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass(OnDupguardStoreCondition.REDIS_DETAILS)
    @ConditionalOnDupguardStore(DupguardProperties.StoreType.REDIS)
    static class RedisBoot {
        RedisBoot() {
            throw new InvalidDupguardPropertyException(
                    "dupguard.store", "redis", "spring-boot-starter-data-redis must be on the classpath");
        }
    }
}

package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyListener;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.InFlightPolicy;
import io.dupguard.idempotency.ResultCodec;
import io.dupguard.jackson.JacksonResultCodec;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.json.JsonMapper;

/**
 * dupguard for Spring Boot: the store chosen by {@code dupguard.store} (jdbc on the application's
 * DataSource, redis on spring.data.redis.*, or memory), an {@link Idempotency} executor whose
 * results go through the application's Jackson {@link JsonMapper}, and the lock provider, tokens,
 * throttle and prepared submissions of the same backend, and the retry log when the application
 * defines task handlers. Every bean backs off when the application
 * defines its own of that type.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
            "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration"
        })
@EnableConfigurationProperties(DupguardProperties.class)
@Import({
    DupguardAnnotationsConfiguration.class,
    DupguardWebConfiguration.class,
    DupguardReactiveWebConfiguration.class,
    DupguardObservabilityConfiguration.class,
    DupguardAmqpConfiguration.class,
    DupguardKafkaConfiguration.class,
    DupguardRetryConfiguration.class,
    DupguardShedLockConfiguration.class,
    DupguardLockRegistryConfiguration.class,
    JdbcStoreConfiguration.class,
    DupguardBackstopConfiguration.class,
    RedisStoreConfiguration.class,
    MemoryStoreConfiguration.class,
    MissingBackendChecks.Jdbc.class,
    MissingBackendChecks.RedisModule.class,
    MissingBackendChecks.RedisBoot.class
})
public class DupguardAutoConfiguration {

    /** Instantiated by Spring Boot's auto-configuration. */
    public DupguardAutoConfiguration() {}

    /** Results through the application's JsonMapper (Jackson 3), or a default one. */
    @Bean
    @ConditionalOnMissingBean
    ResultCodec dupguardResultCodec(ObjectProvider<JsonMapper> mapper) {
        JsonMapper app = mapper.getIfUnique();
        return app == null ? JacksonResultCodec.create() : JacksonResultCodec.of(app);
    }

    @Bean
    @ConditionalOnMissingBean
    IdempotencyConfig dupguardIdempotencyConfig(
            DupguardProperties properties, ResultCodec codec, ObjectProvider<IdempotencyListener> listeners) {
        return idempotencyConfig(
                properties,
                codec,
                CompositeIdempotencyListener.of(listeners.orderedStream().toList()));
    }

    /** Builds the executor settings from dupguard.idempotency.*, naming the property of a bad value. */
    static IdempotencyConfig idempotencyConfig(
            DupguardProperties properties, ResultCodec codec, IdempotencyListener listener) {
        DupguardProperties.Idempotency p = properties.getIdempotency();
        IdempotencyConfig.Builder b = IdempotencyConfig.custom().codec(codec).listener(listener);
        InvalidDupguardPropertyException.check(
                "dupguard.idempotency.in-flight-lease",
                p.getInFlightLease(),
                () -> b.inFlightLease(p.getInFlightLease()));
        InvalidDupguardPropertyException.check(
                "dupguard.idempotency.retention", p.getRetention(), () -> b.retention(p.getRetention()));
        InvalidDupguardPropertyException.check(
                "dupguard.idempotency.local-cache-size",
                p.getLocalCacheSize(),
                () -> b.localCacheSize(p.getLocalCacheSize()));
        if (p.getInFlight() == DupguardProperties.InFlight.WAIT) {
            InvalidDupguardPropertyException.check(
                    "dupguard.idempotency.max-wait",
                    p.getMaxWait(),
                    () -> b.inFlightPolicy(InFlightPolicy.waitUpTo(p.getMaxWait())));
        }
        b.renewLease(p.isRenewLease());
        return InvalidDupguardPropertyException.check(
                "dupguard.idempotency.in-flight-lease", p.getInFlightLease(), b::build);
    }

    @Bean
    @ConditionalOnMissingBean
    Idempotency dupguardIdempotency(IdempotencyStore store, IdempotencyConfig config) {
        return Idempotency.of(store, config);
    }

    /** Checks a scope at start-up, naming the property. */
    static String scope(String property, String scope) {
        return InvalidDupguardPropertyException.check(
                property, scope, () -> IdempotencyKey.of(scope, "x").scope());
    }
}

package io.dupguard.spring.autoconfigure;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Decides the store: {@code dupguard.store} when set, otherwise jdbc when dupguard-jdbc is present
 * and the application has a DataSource bean, otherwise redis when dupguard-redis and Spring Data
 * Redis are present, otherwise memory. Evaluated when beans are registered, after the DataSource
 * and Redis auto-configurations.
 */
class OnDupguardStoreCondition extends SpringBootCondition implements ConfigurationCondition {
    static final String JDBC_STORE = "io.dupguard.jdbc.JdbcIdempotencyStore";
    static final String REDIS_STORE = "io.dupguard.redis.RedisIdempotencyStore";
    static final String REDIS_DETAILS = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

    @Override
    public ConfigurationPhase getConfigurationPhase() {
        return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnDupguardStore.class.getName());
        DupguardProperties.StoreType[] wanted = (DupguardProperties.StoreType[]) attributes.get("value");
        DupguardProperties.StoreType chosen = chosen(context);
        return Arrays.asList(wanted).contains(chosen)
                ? ConditionOutcome.match("dupguard.store is " + chosen)
                : ConditionOutcome.noMatch("dupguard.store is " + chosen + ", not one of " + Arrays.toString(wanted));
    }

    static DupguardProperties.StoreType chosen(ConditionContext context) {
        String raw = context.getEnvironment().getProperty("dupguard.store");
        if (raw != null && !raw.isBlank()) {
            try {
                return DupguardProperties.StoreType.valueOf(raw.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new InvalidDupguardPropertyException(
                        "dupguard.store",
                        raw,
                        "must be one of "
                                + Arrays.toString(DupguardProperties.StoreType.values())
                                        .toLowerCase(Locale.ROOT));
            }
        }
        ClassLoader loader = context.getClassLoader();
        ConfigurableListableBeanFactory beans = context.getBeanFactory();
        if (ClassUtils.isPresent(JDBC_STORE, loader)
                && ClassUtils.isPresent("org.springframework.jdbc.datasource.DataSourceUtils", loader)
                && beans != null
                && beans.getBeanNamesForType(javax.sql.DataSource.class, true, false).length > 0) {
            return DupguardProperties.StoreType.JDBC;
        }
        if (ClassUtils.isPresent(REDIS_STORE, loader)
                && ClassUtils.isPresent(REDIS_DETAILS, loader)
                && beans != null
                && beans.getBeanNamesForType(ClassUtils.resolveClassName(REDIS_DETAILS, loader), true, false).length
                        > 0) {
            return DupguardProperties.StoreType.REDIS;
        }
        return DupguardProperties.StoreType.MEMORY;
    }
}

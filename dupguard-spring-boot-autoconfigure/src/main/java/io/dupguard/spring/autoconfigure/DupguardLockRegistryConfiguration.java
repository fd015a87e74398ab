package io.dupguard.spring.autoconfigure;

import io.dupguard.integration.DupguardLockRegistry;
import io.dupguard.lock.LockProvider;
import java.time.Duration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * With {@code dupguard-spring-integration} on the class path and {@code
 * dupguard.integration.lock-registry.enabled=true}: a Spring Integration {@code LockRegistry} bean on
 * the application's dupguard {@link LockProvider}. Backs off when the application defines its own
 * {@code LockRegistry}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(
        name = {
            "io.dupguard.integration.DupguardLockRegistry",
            "org.springframework.integration.support.locks.LockRegistry"
        })
@ConditionalOnProperty(name = "dupguard.integration.lock-registry.enabled", havingValue = "true")
class DupguardLockRegistryConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    DupguardLockRegistry dupguardLockRegistry(LockProvider locks, Environment environment) {
        Binder binder = Binder.get(environment);
        String prefix = "dupguard.integration.lock-registry.";
        Duration ttl = binder.bind(prefix + "ttl", Duration.class).orElse(DupguardLockRegistry.DEFAULT_TTL);
        String names = binder.bind(prefix + "name-prefix", String.class).orElse(DupguardLockRegistry.DEFAULT_PREFIX);
        DupguardLockRegistry.Builder registry = DupguardLockRegistry.builder(locks)
                .renewal(binder.bind(prefix + "renewal", Boolean.class).orElse(true));
        InvalidDupguardPropertyException.check(prefix + "ttl", ttl, () -> registry.ttl(ttl));
        InvalidDupguardPropertyException.check(prefix + "name-prefix", names, () -> registry.namePrefix(names));
        return registry.build();
    }
}

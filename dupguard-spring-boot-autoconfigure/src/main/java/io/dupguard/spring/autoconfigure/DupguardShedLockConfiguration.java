package io.dupguard.spring.autoconfigure;

import io.dupguard.lock.LockProvider;
import io.dupguard.shedlock.DupguardShedLockProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * With {@code dupguard-shedlock} on the class path and {@code dupguard.shedlock.enabled=true}: ShedLock's
 * {@code LockProvider} bean on the application's dupguard {@link LockProvider}, so {@code @SchedulerLock}
 * jobs run under dupguard locks unchanged. Backs off when the application defines its own ShedLock
 * provider.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(
        name = {"io.dupguard.shedlock.DupguardShedLockProvider", "net.javacrumbs.shedlock.core.LockProvider"})
@ConditionalOnProperty(name = "dupguard.shedlock.enabled", havingValue = "true")
class DupguardShedLockConfiguration {

    @Bean
    @ConditionalOnMissingBean(net.javacrumbs.shedlock.core.LockProvider.class)
    DupguardShedLockProvider dupguardShedLockProvider(LockProvider locks, Environment environment) {
        Binder binder = Binder.get(environment);
        String names = binder.bind("dupguard.shedlock.name-prefix", String.class)
                .orElse(DupguardShedLockProvider.DEFAULT_PREFIX);
        DupguardShedLockProvider.Builder provider = DupguardShedLockProvider.builder(locks)
                .renewal(binder.bind("dupguard.shedlock.renewal", Boolean.class).orElse(false));
        InvalidDupguardPropertyException.check(
                "dupguard.shedlock.name-prefix", names, () -> provider.namePrefix(names));
        return provider.build();
    }
}

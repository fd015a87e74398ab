package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.integration.DupguardLockRegistry;
import io.dupguard.shedlock.DupguardShedLockProvider;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.LockRegistry;

/** The ShedLock provider and the Spring Integration registry are offered only when asked for. */
class LockAdaptersAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DupguardAutoConfiguration.class))
            .withPropertyValues("dupguard.store=memory");

    @Test
    void offUnlessEnabled() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(net.javacrumbs.shedlock.core.LockProvider.class);
            assertThat(context).doesNotHaveBean(LockRegistry.class);
        });
    }

    @Test
    void onWhenEnabledAndUsable() {
        runner.withPropertyValues(
                        "dupguard.shedlock.enabled=true",
                        "dupguard.shedlock.renewal=true",
                        "dupguard.integration.lock-registry.enabled=true",
                        "dupguard.integration.lock-registry.ttl=2s")
                .run(context -> {
                    assertThat(context).hasSingleBean(DupguardShedLockProvider.class);
                    DupguardLockRegistry registry = context.getBean(DupguardLockRegistry.class);
                    Lock lock = registry.obtain("autoconfigured");
                    assertThat(lock.tryLock()).isTrue();
                    lock.unlock();
                });
    }

    @Test
    void aBadValueNamesTheProperty() {
        runner.withPropertyValues(
                        "dupguard.integration.lock-registry.enabled=true", "dupguard.integration.lock-registry.ttl=0s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "Invalid value 'PT0S' for property dupguard.integration.lock-registry.ttl"));
    }
}

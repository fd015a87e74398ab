package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.memory.InMemoryRetryStore;
import io.dupguard.retry.RetryConfig;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.RetryStore;
import io.dupguard.retry.RunResult;
import io.dupguard.spring.retry.RetryLogLifecycle;
import io.dupguard.spring.retry.RetryTaskHandler;
import io.dupguard.spring.retry.SpringTransactionalRetryStore;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Which retry-log beans the starter creates, and when it backs off or refuses to start. */
class RetryLogAutoConfigurationTest {
    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DupguardAutoConfiguration.class));

    private static String h2() {
        return "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    @Configuration(proxyBeanMethods = false)
    static class Handlers {
        @Bean
        RetryTaskHandler mail() {
            return RetryTaskHandler.of("mail", task -> {});
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SameTypeTwice {
        @Bean
        RetryTaskHandler mail1() {
            return RetryTaskHandler.of("mail", task -> {});
        }

        @Bean
        RetryTaskHandler mail2() {
            return RetryTaskHandler.of("mail", task -> {});
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRetryBeans {
        static final InMemoryRetryStore STORE = new InMemoryRetryStore();
        static final RetryLog LOG = RetryLog.builder(STORE).build();

        @Bean
        RetryStore myRetryStore() {
            return STORE;
        }

        @Bean
        RetryLog myRetryLog() {
            return LOG;
        }
    }

    @Test
    void withoutHandlerBeansThereIsNoRetryLog() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(h2())
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx).doesNotHaveBean(RetryLog.class);
                    assertThat(ctx).doesNotHaveBean(RetryStore.class);
                });
    }

    @Test
    void handlerBeansGetALogOnTheApplicationsDataSourceWhoseWorkersRunWithTheContext() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(h2(), "dupguard.retry.workers=2", "dupguard.retry.table=app_retries")
                .withUserConfiguration(Handlers.class)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(RetryStore.class)).isInstanceOf(SpringTransactionalRetryStore.class);
                    assertThat(((SpringTransactionalRetryStore) ctx.getBean(RetryStore.class))
                                    .jdbcStore()
                                    .tableName())
                            .isEqualTo("app_retries");
                    RetryLog log = ctx.getBean(RetryLog.class);
                    assertThat(log.config().workers()).isEqualTo(2);
                    assertThat(log.run("mail", "hello").outcome()).isEqualTo(RunResult.Outcome.SUCCEEDED);
                    RetryLogLifecycle workers = ctx.getBean(RetryLogLifecycle.class);
                    assertThat(workers.isRunning()).isTrue();
                    ctx.close();
                    assertThat(workers.isRunning()).isFalse();
                });
    }

    @Test
    void theMemoryStoreKeepsTasksInMemory() {
        runner.withPropertyValues("dupguard.store=memory")
                .withUserConfiguration(Handlers.class)
                .run(ctx -> assertThat(ctx.getBean(RetryStore.class)).isInstanceOf(InMemoryRetryStore.class));
    }

    @Test
    void theApplicationsOwnRetryStoreAndLogWin() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(h2())
                .withUserConfiguration(Handlers.class, OwnRetryBeans.class)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(RetryStore.class)).isSameAs(OwnRetryBeans.STORE);
                    assertThat(ctx.getBean(RetryLog.class)).isSameAs(OwnRetryBeans.LOG);
                });
    }

    @Test
    void offSwitchAndManualStart() {
        runner.withPropertyValues("dupguard.retry.enabled=false")
                .withUserConfiguration(Handlers.class)
                .run(ctx -> assertThat(ctx).doesNotHaveBean(RetryLog.class));
        runner.withPropertyValues("dupguard.retry.auto-startup=false")
                .withUserConfiguration(Handlers.class)
                .run(ctx -> assertThat(ctx.getBean(RetryLogLifecycle.class).isRunning())
                        .isFalse());
    }

    @Test
    void badSettingsFailStartUpNamingTheProperty() {
        failsNaming("dupguard.retry.workers", "dupguard.retry.workers=0");
        failsNaming("dupguard.retry.lease", "dupguard.retry.lease=500ms");
        failsNaming("dupguard.retry.poll-interval", "dupguard.retry.poll-interval=0s");
        failsNaming("dupguard.retry.table", h2(), "dupguard.retry.table=bad name");
    }

    @Test
    void twoHandlersOfOneTypeFailStartUp() {
        runner.withUserConfiguration(SameTypeTwice.class).run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining("'mail' already has a handler");
        });
    }

    private void failsNaming(String property, String... properties) {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(Handlers.class)
                .withPropertyValues(properties)
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    Throwable t = ctx.getStartupFailure();
                    while (t != null && !(t instanceof InvalidDupguardPropertyException)) {
                        t = t.getCause();
                    }
                    assertThat(t).as("cause of %s", ctx.getStartupFailure()).isNotNull();
                    assertThat(((InvalidDupguardPropertyException) t).property())
                            .isEqualTo(property);
                });
    }

    @Test
    void defaultsAreCoresDefaults() {
        DupguardProperties.Retry r = new DupguardProperties.Retry();
        assertThat(r.getWorkers()).isEqualTo(RetryConfig.DEFAULT_WORKERS);
        assertThat(r.getLease()).isEqualTo(RetryConfig.DEFAULT_LEASE);
    }
}

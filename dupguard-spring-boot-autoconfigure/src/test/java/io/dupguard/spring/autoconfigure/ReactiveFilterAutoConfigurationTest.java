package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.memory.InMemoryIdempotencyStore;
import io.dupguard.spring.web.IdempotencyKeyFilter;
import io.dupguard.spring.web.ReactiveIdempotencyKeyFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A WebFlux application gets the reactive filter (never the servlet one), replaceable and validated. */
class ReactiveFilterAutoConfigurationTest {
    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DupguardAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    static class OwnFilter {
        static final ReactiveIdempotencyKeyFilter FILTER = new ReactiveIdempotencyKeyFilter(
                new InMemoryIdempotencyStore(),
                IdempotencyConfig.ofDefaults(),
                HttpFilterSettings.of(new DupguardProperties.Http()),
                IdempotencyKeyFilter.Listener.NONE,
                0);

        @Bean
        ReactiveIdempotencyKeyFilter myFilter() {
            return FILTER;
        }
    }

    @Test
    void aReactiveApplicationGetsTheWebFilter() {
        runner.run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx).hasSingleBean(ReactiveIdempotencyKeyFilter.class);
            assertThat(ctx).doesNotHaveBean("dupguardIdempotencyKeyFilter");
        });
    }

    @Test
    void theApplicationsOwnFilterWinsAndTheOffSwitchWorks() {
        runner.withUserConfiguration(OwnFilter.class)
                .run(ctx -> assertThat(ctx.getBean(ReactiveIdempotencyKeyFilter.class))
                        .isSameAs(OwnFilter.FILTER));
        runner.withPropertyValues("dupguard.http.enabled=false")
                .run(ctx -> assertThat(ctx).doesNotHaveBean(ReactiveIdempotencyKeyFilter.class));
    }

    @Test
    void waitingForAnInFlightRequestIsRefusedNamingTheProperty() {
        runner.withPropertyValues("dupguard.http.in-flight=wait").run(ctx -> {
            assertThat(ctx).hasFailed();
            Throwable t = ctx.getStartupFailure();
            while (t != null && !(t instanceof InvalidDupguardPropertyException)) {
                t = t.getCause();
            }
            assertThat(t).isNotNull();
            assertThat(((InvalidDupguardPropertyException) t).property()).isEqualTo("dupguard.http.in-flight");
        });
    }
}

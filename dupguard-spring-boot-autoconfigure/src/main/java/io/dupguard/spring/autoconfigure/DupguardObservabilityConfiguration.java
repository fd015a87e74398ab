package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.spring.DupguardActivity;
import io.dupguard.spring.metrics.DupguardMeters;
import io.dupguard.token.SubmissionTokens;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** Metrics, health indicators and the actuator endpoint, each when its library is present. */
@Configuration(proxyBeanMethods = false)
@Import({
    DupguardObservabilityConfiguration.Metrics.class,
    DupguardObservabilityConfiguration.HealthIndicators.class,
    DupguardObservabilityConfiguration.ActuatorEndpoint.class
})
class DupguardObservabilityConfiguration {
    /** The health probe consumes this token: well-formed (27 URL-safe characters), never issued. */
    private static final String PROBE_TOKEN = "A".repeat(27);

    @Bean
    @ConditionalOnMissingBean
    DupguardActivity dupguardActivity() {
        return new DupguardActivity();
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        DupguardMeters dupguardMeters(ObjectProvider<MeterRegistry> registry) {
            return new DupguardMeters(registry::getIfUnique);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class HealthIndicators {
        private static final IdempotencyKey PROBE = IdempotencyKey.of("dupguard-health", "probe");

        /**
         * Health contributor "dupguard" with one indicator per configured store (idempotency,
         * locks, tokens), each a real round trip bounded by dupguard.health.timeout.
         */
        @Bean
        @ConditionalOnMissingBean(name = "dupguardHealthContributor")
        CompositeHealthContributor dupguardHealthContributor(
                ObjectProvider<IdempotencyStore> store,
                ObjectProvider<LockProvider> locks,
                ObjectProvider<SubmissionTokens> tokens,
                DupguardProperties p) {
            Duration timeout = p.getHealth().getTimeout();
            Map<String, HealthContributor> indicators = new LinkedHashMap<>();
            store.ifAvailable(s -> indicators.put(
                    "idempotencyStore",
                    new DupguardHealthIndicator(s.getClass().getSimpleName(), () -> s.find(PROBE), timeout)));
            locks.ifAvailable(l -> indicators.put(
                    "lockProvider",
                    new DupguardHealthIndicator(
                            l.getClass().getSimpleName(),
                            () -> l.tryAcquire(
                                            "dupguard-health-probe",
                                            LockOptions.custom()
                                                    .leaseTime(Duration.ofSeconds(5))
                                                    .owner("dupguard-health")
                                                    .build())
                                    .ifPresent(Lease::close),
                            timeout)));
            tokens.ifAvailable(t -> indicators.put(
                    "submissionTokens",
                    new DupguardHealthIndicator(
                            t.getClass().getSimpleName(),
                            () -> t.consume("dupguard-health", "probe", PROBE_TOKEN),
                            timeout)));
            return CompositeHealthContributor.fromMap(indicators);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    static class ActuatorEndpoint {
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint(DupguardEndpoint.class)
        DupguardEndpoint dupguardEndpoint(
                DupguardProperties properties,
                ObjectProvider<IdempotencyStore> store,
                ObjectProvider<LockProvider> locks,
                ObjectProvider<IdempotencyConfig> config,
                DupguardActivity activity) {
            return new DupguardEndpoint(properties, store, locks, config, activity);
        }
    }
}

package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.spring.web.IdempotencyKeyFilter;
import io.dupguard.spring.web.ReactiveIdempotencyKeyFilter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.server.WebFilter;

/**
 * The Idempotency-Key filter for Spring WebFlux applications: the same dupguard.http.* settings as
 * the servlet filter, as a {@link WebFilter} ordered after Spring Security's (-100).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(WebFilter.class)
@ConditionalOnProperty(name = "dupguard.http.enabled", matchIfMissing = true)
class DupguardReactiveWebConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ReactiveIdempotencyKeyFilter dupguardReactiveIdempotencyKeyFilter(
            IdempotencyStore store,
            IdempotencyConfig config,
            DupguardProperties properties,
            ObjectProvider<IdempotencyKeyFilter.Listener> listener) {
        DupguardProperties.Http http = properties.getHttp();
        if (http.getInFlight() == DupguardProperties.InFlight.WAIT) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.http.in-flight",
                    "wait",
                    "the WebFlux filter never blocks a request on another; use reject (409 request-in-flight)");
        }
        return new ReactiveIdempotencyKeyFilter(
                store,
                config,
                HttpFilterSettings.of(http),
                listener.getIfAvailable(() -> IdempotencyKeyFilter.Listener.NONE),
                HttpFilterSettings.FILTER_ORDER);
    }
}

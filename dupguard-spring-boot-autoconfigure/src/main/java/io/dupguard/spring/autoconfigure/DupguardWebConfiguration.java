package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.InFlightPolicy;
import io.dupguard.idempotency.ResultCodec;
import io.dupguard.spring.DupguardActivity;
import io.dupguard.spring.IdempotentExecution;
import io.dupguard.spring.web.DefaultPrincipalResolver;
import io.dupguard.spring.web.IdempotencyKeyFilter;
import io.dupguard.spring.web.IdempotencyPrincipalResolver;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.OncePerRequestFilter;

/** The Idempotency-Key filter for Spring MVC (servlet) applications. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({OncePerRequestFilter.class, FilterRegistrationBean.class})
@ConditionalOnProperty(name = "dupguard.http.enabled", matchIfMissing = true)
class DupguardWebConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotencyPrincipalResolver dupguardPrincipalResolver() {
        return new DefaultPrincipalResolver();
    }

    @Bean
    @ConditionalOnMissingBean(name = "dupguardIdempotencyKeyFilter")
    FilterRegistrationBean<IdempotencyKeyFilter> dupguardIdempotencyKeyFilter(
            IdempotencyStore store,
            IdempotencyConfig config,
            DupguardProperties properties,
            IdempotencyPrincipalResolver principals,
            ObjectProvider<IdempotencyKeyFilter.Listener> listener,
            ObjectProvider<DupguardActivity> activity,
            ObjectProvider<ExecutionResolver> resolvers) {
        DupguardProperties.Http http = properties.getHttp();
        IdempotencyKeyFilter.Settings settings = HttpFilterSettings.of(http);
        IdempotencyConfig.Builder b = IdempotencyConfig.from(config).codec(ResultCodec.basic());
        if (http.getInFlight() == DupguardProperties.InFlight.WAIT) {
            InvalidDupguardPropertyException.check(
                    "dupguard.http.max-wait",
                    http.getMaxWait(),
                    () -> b.inFlightPolicy(InFlightPolicy.waitUpTo(http.getMaxWait())));
        } else {
            b.inFlightPolicy(InFlightPolicy.reject());
        }
        IdempotentExecution execution = ExecutionResolver.choose(
                resolvers,
                "the HTTP Idempotency-Key filter",
                "dupguard.http.mode",
                http.getMode(),
                Idempotency.of(store, b.build()),
                true,
                false,
                true);
        IdempotencyKeyFilter filter = new IdempotencyKeyFilter(
                execution, settings, principals, listener.getIfAvailable(() -> IdempotencyKeyFilter.Listener.NONE));
        filter.setActivity(activity::getIfAvailable);
        FilterRegistrationBean<IdempotencyKeyFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("dupguardIdempotencyKeyFilter");
        registration.setOrder(HttpFilterSettings.FILTER_ORDER);
        return registration;
    }
}

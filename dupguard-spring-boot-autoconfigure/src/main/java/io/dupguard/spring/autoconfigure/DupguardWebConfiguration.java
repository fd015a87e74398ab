package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.InFlightPolicy;
import io.dupguard.idempotency.ResultCodec;
import io.dupguard.spring.DupguardActivity;
import io.dupguard.spring.web.DefaultPrincipalResolver;
import io.dupguard.spring.web.IdempotencyKeyFilter;
import io.dupguard.spring.web.IdempotencyPrincipalResolver;
import java.util.ArrayList;
import java.util.List;
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
    /**
     * Order of the filter: after Spring Security's filter chain (-100), so the principal is known,
     * and before the DispatcherServlet.
     */
    static final int FILTER_ORDER = 0;

    /** The longest client key: 255 (the store's limit) minus the principal hash and separator. */
    static final int MAX_CLIENT_KEY = 222;

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
            ObjectProvider<DupguardActivity> activity) {
        DupguardProperties.Http http = properties.getHttp();
        IdempotencyKeyFilter.Settings settings = settings(http);
        IdempotencyConfig.Builder b = IdempotencyConfig.from(config).codec(ResultCodec.basic());
        if (http.getInFlight() == DupguardProperties.InFlight.WAIT) {
            InvalidDupguardPropertyException.check(
                    "dupguard.http.max-wait",
                    http.getMaxWait(),
                    () -> b.inFlightPolicy(InFlightPolicy.waitUpTo(http.getMaxWait())));
        } else {
            b.inFlightPolicy(InFlightPolicy.reject());
        }
        IdempotencyKeyFilter filter = new IdempotencyKeyFilter(
                Idempotency.of(store, b.build()),
                settings,
                principals,
                listener.getIfAvailable(() -> IdempotencyKeyFilter.Listener.NONE));
        filter.setActivity(activity::getIfAvailable);
        FilterRegistrationBean<IdempotencyKeyFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("dupguardIdempotencyKeyFilter");
        registration.setOrder(FILTER_ORDER);
        return registration;
    }

    /** Checks dupguard.http.* and builds the filter's settings. */
    static IdempotencyKeyFilter.Settings settings(DupguardProperties.Http http) {
        if (http.getHeader() == null || !http.getHeader().matches("[A-Za-z0-9-]+")) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.http.header", http.getHeader(), "must be a header name");
        }
        String scope = DupguardAutoConfiguration.scope("dupguard.http.scope", http.getScope());
        if (http.getMaxKeyLength() < 1 || http.getMaxKeyLength() > MAX_CLIENT_KEY) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.http.max-key-length", http.getMaxKeyLength(), "must be between 1 and " + MAX_CLIENT_KEY);
        }
        if (http.getMaxRequestBodySize() < 0) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.http.max-request-body-size", http.getMaxRequestBodySize(), "must not be negative");
        }
        if (http.getMaxStoredBodySize() < 0 || http.getMaxStoredBodySize() > Integer.MAX_VALUE - 1024) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.http.max-stored-body-size", http.getMaxStoredBodySize(), "must be between 0 and 2 GB");
        }
        List<IdempotencyKeyFilter.Endpoint> endpoints = new ArrayList<>();
        for (int i = 0; i < http.getEndpoints().size(); i++) {
            DupguardProperties.Endpoint e = http.getEndpoints().get(i);
            String prefix = "dupguard.http.endpoints[" + i + "]";
            if (e.getPaths().isEmpty()) {
                throw new InvalidDupguardPropertyException(prefix + ".paths", e.getPaths(), "must name a path pattern");
            }
            if (e.getMethods().isEmpty()) {
                throw new InvalidDupguardPropertyException(prefix + ".methods", e.getMethods(), "must name a method");
            }
            endpoints.add(InvalidDupguardPropertyException.check(
                    prefix + ".paths",
                    e.getPaths(),
                    () -> IdempotencyKeyFilter.Endpoint.of(e.getPaths(), e.getMethods(), e.isRequired())));
        }
        return new IdempotencyKeyFilter.Settings(
                http.getHeader(),
                scope,
                List.copyOf(endpoints),
                http.getMaxKeyLength(),
                http.getMaxRequestBodySize(),
                http.getMaxStoredBodySize(),
                List.copyOf(http.getReplayedHeaders()),
                http.isReplayClientErrors(),
                http.getProblemTypeBase());
    }
}

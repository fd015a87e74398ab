package io.dupguard.spring.autoconfigure;

import io.dupguard.spring.web.IdempotencyKeyFilter;
import java.util.ArrayList;
import java.util.List;

/** dupguard.http.* checked and turned into the filters' settings; shared by the servlet and WebFlux filters. */
final class HttpFilterSettings {
    /**
     * Order of the filter: after Spring Security's filter chain (-100 on both stacks), so the
     * principal is known, and before the application's handlers.
     */
    static final int FILTER_ORDER = 0;

    /** The longest client key: 255 (the store's limit) minus the principal hash and separator. */
    static final int MAX_CLIENT_KEY = 222;

    private HttpFilterSettings() {}

    /** Checks dupguard.http.* and builds the filter's settings. */
    static IdempotencyKeyFilter.Settings of(DupguardProperties.Http http) {
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
        java.util.Set<Integer> release = new java.util.TreeSet<>();
        for (Integer status : http.getReleaseStatuses()) {
            if (status == null || status < 400 || status > 499) {
                throw new InvalidDupguardPropertyException(
                        "dupguard.http.release-statuses",
                        http.getReleaseStatuses(),
                        "must list 4xx statuses (5xx responses are never stored)");
            }
            release.add(status);
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
                http.getProblemTypeBase(),
                java.util.Set.copyOf(release));
    }
}

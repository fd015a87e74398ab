package io.dupguard.spring.web;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Names the client a request comes from, so that idempotency keys are scoped per client: two
 * clients that send the same key get independent records, and one can never receive the other's
 * stored response. Define a bean to replace the default (Spring Security's authenticated principal
 * when present, otherwise the servlet request's user principal, otherwise {@code "anonymous"}).
 * Must be thread-safe.
 */
@FunctionalInterface
public interface IdempotencyPrincipalResolver {
    /**
     * The client's stable identity, or null when the request is anonymous.
     *
     * @param request the current request; never null
     * @return the identity, or null for an anonymous request
     */
    String resolve(HttpServletRequest request);
}

package io.dupguard.spring.web;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import org.springframework.util.ClassUtils;

/**
 * Spring Security's authenticated principal when Spring Security is on the classpath (anonymous
 * tokens do not count), otherwise {@link HttpServletRequest#getUserPrincipal()}.
 */
public final class DefaultPrincipalResolver implements IdempotencyPrincipalResolver {
    private static final boolean SECURITY = ClassUtils.isPresent(
            "org.springframework.security.core.context.SecurityContextHolder",
            DefaultPrincipalResolver.class.getClassLoader());

    /** A resolver; stateless and thread-safe. */
    public DefaultPrincipalResolver() {}

    @Override
    public String resolve(HttpServletRequest request) {
        if (SECURITY) {
            return SecurityPrincipal.name();
        }
        Principal principal = request.getUserPrincipal();
        return principal == null ? null : principal.getName();
    }
}

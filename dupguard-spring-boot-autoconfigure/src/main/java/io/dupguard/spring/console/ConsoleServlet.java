package io.dupguard.spring.console;

import io.dupguard.console.Actor;
import io.dupguard.console.ConsoleHandler;
import io.dupguard.console.ConsoleRequest;
import io.dupguard.console.ConsoleResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.csrf.CsrfToken;

/**
 * Serves the console behind the application's Spring Security filter chain: the user and roles come
 * from the authenticated {@link Authentication}'s authorities, and CSRF from Spring Security's
 * {@code CsrfFilter}, which has already refused a POST without a valid token before it gets here. A
 * POST without a {@link CsrfToken} request attribute (CSRF protection switched off) is refused.
 */
final class ConsoleServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient ConsoleHandler handler;
    private final String viewer;
    private final String operator;

    ConsoleServlet(ConsoleHandler handler, ConsoleProperties p) {
        this.handler = handler;
        this.viewer = p.getViewerAuthority();
        this.operator = p.getOperatorAuthority();
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Authentication auth = SecurityContextHolder.getContext().getAuthentication();
        boolean isViewer = false;
        boolean isOperator = false;
        if (auth != null && auth.isAuthenticated()) {
            for (GrantedAuthority a : auth.getAuthorities()) {
                isOperator |= operator.equals(a.getAuthority());
                isViewer |= viewer.equals(a.getAuthority());
            }
        }
        if (!isViewer && !isOperator) {
            resp.sendError(
                    HttpServletResponse.SC_FORBIDDEN,
                    "the dupguard console needs the authority " + viewer + " or " + operator);
            return;
        }
        CsrfToken token = (CsrfToken) req.getAttribute(CsrfToken.class.getName());
        ConsoleRequest.Csrf csrf = token == null
                ? new ConsoleRequest.Csrf("_csrf", "", false)
                : new ConsoleRequest.Csrf(token.getParameterName(), token.getToken(), true);
        Map<String, String> params = new HashMap<>();
        req.getParameterMap().forEach((k, v) -> params.put(k, v.length == 0 ? "" : v[0]));
        String path = req.getPathInfo();
        ConsoleResponse r = handler.handle(new ConsoleRequest(
                req.getMethod(),
                path,
                params,
                new Actor(auth.getName(), isOperator),
                csrf,
                req.getContextPath() + req.getServletPath()));
        resp.setStatus(r.status());
        resp.setContentType(r.contentType());
        resp.setHeader("Cache-Control", "no-store");
        resp.setHeader("X-Content-Type-Options", "nosniff");
        resp.setHeader(
                "Content-Security-Policy",
                "default-src 'none'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'");
        resp.getOutputStream().write(r.body().getBytes(StandardCharsets.UTF_8));
    }
}

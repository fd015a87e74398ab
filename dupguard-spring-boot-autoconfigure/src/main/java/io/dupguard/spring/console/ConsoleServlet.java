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
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.security.web.csrf.CsrfTokenRequestAttributeHandler;
import org.springframework.security.web.csrf.CsrfTokenRequestResolver;
import org.springframework.security.web.csrf.DeferredCsrfToken;
import org.springframework.security.web.csrf.XorCsrfTokenRequestAttributeHandler;

/**
 * Serves the console behind the application's Spring Security filter chain: the user and roles come
 * from the authenticated {@link Authentication}'s authorities; the CSRF token is Spring Security's.
 *
 * <p>The servlet checks the token of every POST itself and does not rely on {@code CsrfFilter}
 * having checked it: the filter puts its token in the request attributes on every request, also on
 * the ones its matcher leaves unprotected ({@code csrf.ignoringRequestMatchers(...)} covering the
 * console's path, a custom matcher). The submitted value (header or form field, as the token names
 * them) must equal the token of the request's {@link DeferredCsrfToken} in constant time, either as
 * sent or unmasked as {@link XorCsrfTokenRequestAttributeHandler} (Spring Security's default) masks
 * it. A POST without that attribute (CSRF protection switched off) or without a matching value is
 * refused with 403 before it reaches a store.
 */
final class ConsoleServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** Reads the submitted token as sent (header, then form field). */
    private static final CsrfTokenRequestResolver AS_SENT = new CsrfTokenRequestAttributeHandler();

    /** Reads the submitted token and unmasks it, as Spring Security's default handler masks it. */
    private static final CsrfTokenRequestResolver MASKED = new XorCsrfTokenRequestAttributeHandler();

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
                : new ConsoleRequest.Csrf(
                        token.getParameterName(), token.getToken(), "POST".equals(req.getMethod()) && csrfValid(req));
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

    /** Whether the request carries the session's CSRF token, as sent or masked (see the class comment). */
    static boolean csrfValid(HttpServletRequest req) {
        if (!(req.getAttribute(DeferredCsrfToken.class.getName()) instanceof DeferredCsrfToken deferred)) {
            return false;
        }
        CsrfToken expected = deferred.get();
        return same(expected.getToken(), AS_SENT.resolveCsrfTokenValue(req, expected))
                || same(expected.getToken(), MASKED.resolveCsrfTokenValue(req, expected));
    }

    private static boolean same(String expected, String given) {
        return expected != null
                && given != null
                && MessageDigest.isEqual(
                        expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
    }
}

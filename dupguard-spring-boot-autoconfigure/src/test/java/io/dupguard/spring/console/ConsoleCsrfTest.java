package io.dupguard.spring.console;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.MockHttpSession;
import org.springframework.security.web.csrf.CsrfFilter;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.security.web.csrf.CsrfTokenRequestAttributeHandler;
import org.springframework.security.web.csrf.CsrfTokenRequestHandler;
import org.springframework.security.web.csrf.HttpSessionCsrfTokenRepository;
import org.springframework.security.web.csrf.XorCsrfTokenRequestAttributeHandler;

/**
 * The console servlet's own CSRF check behind Spring Security's real {@link CsrfFilter} whose
 * matcher leaves the console unprotected (as {@code csrf.ignoringRequestMatchers} does): the token a
 * page of the session carried passes, masked by the default handler or as sent by the plain one;
 * none, a wrong one, or another session's does not.
 */
class ConsoleCsrfTest {
    private final HttpSessionCsrfTokenRepository repository = new HttpSessionCsrfTokenRepository();

    /** What the console's check says about a request after Spring Security's filter ran on it. */
    private boolean consoleAccepts(CsrfTokenRequestHandler handler, MockHttpServletRequest request) throws Exception {
        CsrfFilter filter = new CsrfFilter(repository);
        filter.setRequireCsrfProtectionMatcher(r -> false); // the console's path is ignored
        filter.setRequestHandler(handler);
        AtomicReference<Boolean> accepted = new AtomicReference<>();
        filter.doFilter(
                request,
                new MockHttpServletResponse(),
                (req, res) -> accepted.set(ConsoleServlet.csrfValid((HttpServletRequest) req)));
        return accepted.get();
    }

    /** The token a page of {@code session} puts in its forms. */
    private String formToken(CsrfTokenRequestHandler handler, MockHttpSession session) throws Exception {
        MockHttpServletRequest page = new MockHttpServletRequest("GET", "/dupguard/tasks/1");
        page.setSession(session);
        CsrfFilter filter = new CsrfFilter(repository);
        filter.setRequestHandler(handler);
        AtomicReference<String> token = new AtomicReference<>();
        filter.doFilter(
                page,
                new MockHttpServletResponse(),
                (req, res) -> token.set(((CsrfToken) req.getAttribute(CsrfToken.class.getName())).getToken()));
        return token.get();
    }

    private static MockHttpServletRequest post(MockHttpSession session, Map<String, String> params) {
        MockHttpServletRequest r = new MockHttpServletRequest("POST", "/dupguard/api/tasks/1/cancel");
        r.setSession(session);
        params.forEach(r::addParameter);
        return r;
    }

    @Test
    void theTokenOfTheSessionPassesAndNoOtherDoes() throws Exception {
        for (CsrfTokenRequestHandler handler : new CsrfTokenRequestHandler[] {
            new XorCsrfTokenRequestAttributeHandler(), new CsrfTokenRequestAttributeHandler()
        }) {
            String name = handler.getClass().getSimpleName();
            MockHttpSession session = new MockHttpSession();
            String token = formToken(handler, session);
            assertThat(consoleAccepts(handler, post(session, Map.of("_csrf", token))))
                    .as(name + ": the form field")
                    .isTrue();
            MockHttpServletRequest header = post(session, Map.of());
            header.addHeader("X-CSRF-TOKEN", token);
            assertThat(consoleAccepts(handler, header))
                    .as(name + ": the header")
                    .isTrue();

            assertThat(consoleAccepts(handler, post(session, Map.of())))
                    .as(name + ": none")
                    .isFalse();
            assertThat(consoleAccepts(handler, post(session, Map.of("_csrf", token + "x"))))
                    .as(name + ": a wrong one")
                    .isFalse();
            MockHttpSession other = new MockHttpSession();
            assertThat(consoleAccepts(handler, post(other, Map.of("_csrf", token))))
                    .as(name + ": another session's")
                    .isFalse();
        }
    }

    @Test
    void withoutSpringSecuritysTokenEveryPostIsRefused() {
        MockHttpServletRequest r = post(new MockHttpSession(), Map.of("_csrf", "anything"));
        assertThat(ConsoleServlet.csrfValid(r)).isFalse();
    }
}

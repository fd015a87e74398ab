package io.dupguard.examples.payments;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.core.userdetails.UsernameNotFoundException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import tools.jackson.databind.json.JsonMapper;

/**
 * HTTP basic authentication for two demo clients, with {@code application/problem+json} 401s.
 *
 * <p>The clients' passwords stay stored as {@code {noop}}: {@link #clients()} is a plain {@link
 * UserDetailsService}, not a {@code UserDetailsPasswordService} such as Spring's {@code
 * InMemoryUserDetailsManager}, which would "upgrade" them to BCrypt after the first login and then
 * hash every request's password (~70 ms of CPU each). A real service authenticates its clients with
 * tokens, sessions or mTLS, whose per-request check costs microseconds.
 */
@Configuration(proxyBeanMethods = false)
class ApiSecurity {
    @Bean
    SecurityFilterChain api(HttpSecurity http, AuthenticationEntryPoint problems) throws Exception {
        return http.authorizeHttpRequests(a -> a.requestMatchers("/actuator/health/**")
                        .permitAll()
                        .anyRequest()
                        .authenticated())
                .httpBasic(b -> b.authenticationEntryPoint(problems))
                .exceptionHandling(e -> e.authenticationEntryPoint(problems))
                // an API: every request authenticates, no session is created
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .csrf(AbstractHttpConfigurer::disable)
                .build();
    }

    /** Two demo clients; a real service authenticates its API clients properly. */
    @Bean
    UserDetailsService clients() {
        Map<String, String> passwords = Map.of("shop-a", "{noop}secret-a", "shop-b", "{noop}secret-b");
        return username -> {
            String password = passwords.get(username);
            if (password == null) {
                throw new UsernameNotFoundException("unknown client");
            }
            // A new object per call: Spring Security erases the credentials of the one it used.
            UserDetails client = User.withUsername(username)
                    .password(password)
                    .roles("CLIENT")
                    .build();
            return client;
        };
    }

    /** 401 as {@code application/problem+json}, like dupguard's filter's errors. */
    @Bean
    AuthenticationEntryPoint problems(JsonMapper json) {
        return new AuthenticationEntryPoint() {
            @Override
            public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException e)
                    throws IOException {
                ProblemDetail problem = PaymentController.problem(
                        HttpStatus.UNAUTHORIZED,
                        "unauthenticated",
                        "Authentication required",
                        "send the client's credentials with HTTP basic authentication");
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("type", problem.getType().toString());
                body.put("title", problem.getTitle());
                body.put("status", problem.getStatus());
                body.put("detail", problem.getDetail());
                response.setStatus(problem.getStatus());
                response.setHeader("WWW-Authenticate", "Basic realm=\"payments\"");
                response.setContentType("application/problem+json");
                response.getOutputStream().write(json.writeValueAsBytes(body));
            }
        };
    }
}

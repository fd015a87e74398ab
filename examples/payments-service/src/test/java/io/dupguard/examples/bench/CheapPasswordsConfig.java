package io.dupguard.examples.bench;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;

/**
 * Keeps the example's {@code {noop}} demo passwords as they are stored, so basic auth costs a string
 * comparison per request instead of BCrypt.
 *
 * <p>Why the benchmark needs it: the example's {@code InMemoryUserDetailsManager} is also a {@code
 * UserDetailsPasswordService}, so Spring Security "upgrades" a {@code {noop}} password to {@code
 * {bcrypt}} after the first successful login, and from then on every request runs BCrypt (~70 ms of
 * CPU at strength 10). On 2 cores that caps the endpoint at ~27 requests/s whatever the filter does,
 * and the benchmark would measure BCrypt. With this encoder ({@code upgradeEncoding} false) the
 * stored encoding stays {@code {noop}}; authentication and the filter's principal scoping are
 * unchanged (the principal is still {@code shop-a}).
 */
@Configuration(proxyBeanMethods = false)
class CheapPasswordsConfig {
    @Bean
    PasswordEncoder benchPasswordEncoder() {
        PasswordEncoder stored = PasswordEncoderFactories.createDelegatingPasswordEncoder();
        return new PasswordEncoder() {
            @Override
            public String encode(CharSequence rawPassword) {
                return stored.encode(rawPassword);
            }

            @Override
            public boolean matches(CharSequence rawPassword, String encodedPassword) {
                return stored.matches(rawPassword, encodedPassword);
            }

            @Override
            public boolean upgradeEncoding(String encodedPassword) {
                return false;
            }
        };
    }
}

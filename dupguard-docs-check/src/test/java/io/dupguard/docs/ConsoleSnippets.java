package io.dupguard.docs;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.authority.mapping.GrantedAuthoritiesMapper;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.oauth2.core.oidc.user.OidcUserAuthority;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/** The snippets of docs/console.md: the Spring Security configurations the console runs behind. */
@SuppressWarnings("unused")
class ConsoleSnippets {
    static class BasicOrFormLogin {
        // tag::basic-login[]
        @Bean
        SecurityFilterChain security(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(a -> a
                            .requestMatchers("/dupguard/**").hasAnyRole("DUPGUARD_VIEWER", "DUPGUARD_OPERATOR")
                            .anyRequest().authenticated())
                    .formLogin(Customizer.withDefaults()) // or .httpBasic(Customizer.withDefaults())
                    .build();                             // CSRF stays on
        }

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("oncall").password("{bcrypt}…").roles("DUPGUARD_OPERATOR").build(),
                    User.withUsername("support").password("{bcrypt}…").roles("DUPGUARD_VIEWER").build());
        }
        // end::basic-login[]
    }

    static class OAuth2Login {
        // tag::oauth2-login[]
        @Bean
        SecurityFilterChain security(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(a -> a
                            .requestMatchers("/dupguard/**").hasAnyRole("DUPGUARD_VIEWER", "DUPGUARD_OPERATOR")
                            .anyRequest().authenticated())
                    .oauth2Login(Customizer.withDefaults())
                    .build();
        }

        @Bean
        GrantedAuthoritiesMapper dupguardRoles() {
            return authorities -> {
                Set<GrantedAuthority> out = new HashSet<>(authorities);
                for (GrantedAuthority a : authorities) {
                    if (a instanceof OidcUserAuthority oidc) {
                        List<String> groups = oidc.getIdToken().getClaimAsStringList("groups");
                        if (groups != null && groups.contains("payments-oncall")) {
                            out.add(new SimpleGrantedAuthority("ROLE_DUPGUARD_OPERATOR"));
                        } else if (groups != null && groups.contains("payments-support")) {
                            out.add(new SimpleGrantedAuthority("ROLE_DUPGUARD_VIEWER"));
                        }
                    }
                }
                return out;
            };
        }
        // end::oauth2-login[]
    }
}

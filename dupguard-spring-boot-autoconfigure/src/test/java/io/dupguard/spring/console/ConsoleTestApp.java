package io.dupguard.spring.console;

import io.dupguard.redis.RedisLockProvider;
import io.dupguard.retry.Alert;
import io.dupguard.retry.AlertSink;
import io.dupguard.retry.NonRetryableException;
import io.dupguard.spring.autoconfigure.DupguardRedisConnection;
import io.dupguard.spring.retry.RetryTaskHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * A payments application with the console on: form login and HTTP basic, CSRF on (Spring Security's
 * default) except for the console's JSON API, which the application leaves out of Spring Security's
 * CSRF protection ({@code ignoringRequestMatchers}), so the console's own check is the only one
 * there; users viewer/v (DUPGUARD_VIEWER), olga/o and bob/b (DUPGUARD_OPERATOR). Its charge
 * handler refuses a card that has not been renewed, which parks the task BLOCKED and alerts. Its
 * stores are on the DataSource, its locks on Redis ({@code RedisLockProvider} under the key prefix
 * {@code console-test.redis-lock-prefix}), so the console lists the locks of both.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ConsoleTestApp {
    static final Queue<Alert> ALERTS = new ConcurrentLinkedQueue<>();

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
                .formLogin(Customizer.withDefaults())
                .httpBasic(Customizer.withDefaults())
                .csrf(c -> c.ignoringRequestMatchers("/dupguard/api/**"))
                .build();
    }

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("viewer")
                        .password("{noop}v")
                        .roles("DUPGUARD_VIEWER")
                        .build(),
                User.withUsername("olga")
                        .password("{noop}o")
                        .roles("DUPGUARD_OPERATOR")
                        .build(),
                User.withUsername("bob")
                        .password("{noop}b")
                        .roles("DUPGUARD_OPERATOR")
                        .build());
    }

    @Bean
    RetryTaskHandler charge() {
        return RetryTaskHandler.of("payment.charge", task -> {
            if (!task.payloadText().contains("\"renewed\":true")) {
                throw new NonRetryableException("card 4242 expired: the gateway declined the charge");
            }
        });
    }

    @Bean
    DupguardRedisConnection redis(@Value("${console-test.redis-url}") String url) {
        RedisURI uri = RedisURI.create(url);
        return DupguardRedisConnection.standalone(RedisClient.create(uri), uri);
    }

    @Bean
    RedisLockProvider redisLocks(
            DupguardRedisConnection redis, @Value("${console-test.redis-lock-prefix}") String prefix) {
        return RedisLockProvider.builder((RedisClient) redis.client(), redis.uri())
                .keyPrefix(prefix)
                .build();
    }

    @Bean
    AlertSink alerts() {
        return ALERTS::add;
    }
}

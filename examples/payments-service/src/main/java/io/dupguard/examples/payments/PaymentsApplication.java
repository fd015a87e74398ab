package io.dupguard.examples.payments;

import io.dupguard.spring.amqp.IdempotentMessageInterceptor;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.amqp.autoconfigure.SimpleRabbitListenerContainerFactoryConfigurer;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * A payments API: POST /payments is idempotent by its Idempotency-Key header (dupguard's filter,
 * keys in Redis, scoped per authenticated client); each payment is published to RabbitMQ, and a
 * deduplicated listener credits the account under a distributed lock, with a fenced update.
 */
@SpringBootApplication
public class PaymentsApplication {
    /** The queue of credits to apply. */
    public static final String CREDITS = "payments.credits";

    public static void main(String[] args) {
        SpringApplication.run(PaymentsApplication.class, args);
    }

    @Bean
    Queue credits() {
        return new Queue(CREDITS, true);
    }

    /** Listener containers whose deliveries are deduplicated by message-id. */
    @Bean
    SimpleRabbitListenerContainerFactory dedupFactory(
            SimpleRabbitListenerContainerFactoryConfigurer configurer,
            ConnectionFactory connectionFactory,
            IdempotentMessageInterceptor dedup) {
        SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
        configurer.configure(factory, connectionFactory);
        factory.setConcurrentConsumers(2);
        factory.setAdviceChain(dedup);
        return factory;
    }

    @Bean
    SecurityFilterChain api(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(a -> a.requestMatchers("/actuator/health/**")
                        .permitAll()
                        .anyRequest()
                        .authenticated())
                .httpBasic(Customizer.withDefaults())
                .csrf(AbstractHttpConfigurer::disable)
                .build();
    }

    /** Two demo clients; a real service authenticates its API clients properly. */
    @Bean
    UserDetailsService clients() {
        return new InMemoryUserDetailsManager(
                User.withUsername("shop-a")
                        .password("{noop}secret-a")
                        .roles("CLIENT")
                        .build(),
                User.withUsername("shop-b")
                        .password("{noop}secret-b")
                        .roles("CLIENT")
                        .build());
    }
}

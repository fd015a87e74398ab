package io.dupguard.examples.payments;

import io.dupguard.spring.amqp.DedupAwareRetry;
import io.dupguard.spring.amqp.IdempotentMessageInterceptor;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.amqp.autoconfigure.SimpleRabbitListenerContainerFactoryConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The credits queue ({@code payments.credits.queue}), its dead-letter exchange and queue, and the
 * listener container factory with dupguard's consumer dedup.
 *
 * <p>A delivery that keeps failing is retried in the consumer a bounded number of times
 * ({@code spring.rabbitmq.listener.simple.retry.*}), then rejected without requeue, and the broker
 * moves it to {@code <queue>.dlq} through the {@code <queue>.dlx} exchange: a poison message or a
 * message without a key ends there once, for a person to look at, instead of looping.
 */
@Configuration(proxyBeanMethods = false)
class CreditsMessaging {
    private final String queue;

    CreditsMessaging(@Value("${payments.credits.queue}") String queue) {
        this.queue = queue;
    }

    @Bean
    Queue credits() {
        return QueueBuilder.durable(queue)
                .deadLetterExchange(queue + ".dlx")
                .deadLetterRoutingKey(queue + ".dlq")
                .build();
    }

    @Bean
    DirectExchange creditsDeadLetterExchange() {
        return new DirectExchange(queue + ".dlx");
    }

    @Bean
    Queue creditsDeadLetters() {
        return QueueBuilder.durable(queue + ".dlq").build();
    }

    @Bean
    Binding creditsDeadLetterBinding() {
        return BindingBuilder.bind(creditsDeadLetters())
                .to(creditsDeadLetterExchange())
                .with(queue + ".dlq");
    }

    /**
     * Listener containers whose deliveries are deduplicated by message-id. The dedup is appended to
     * the advice chain Boot's configurer built (its retry interceptor, when listener retry is
     * enabled), so each retry attempt claims the key again and a failed attempt releases it.
     */
    @Bean
    SimpleRabbitListenerContainerFactory dedupFactory(
            SimpleRabbitListenerContainerFactoryConfigurer configurer,
            ConnectionFactory connectionFactory,
            IdempotentMessageInterceptor dedup) {
        SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
        configurer.configure(factory, connectionFactory);
        factory.setConcurrentConsumers(2);
        // Each retry attempt runs through the dedup (Spring AMQP's retry calls proceed() again on one
        // invocation, which past the first attempt would go straight to the listener).
        factory.setAdviceChain(DedupAwareRetry.withDedup(factory.getAdviceChain(), dedup));
        return factory;
    }
}

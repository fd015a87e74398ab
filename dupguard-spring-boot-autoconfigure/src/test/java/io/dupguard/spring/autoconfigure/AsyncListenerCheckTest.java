package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * The asynchronous-listener cell of the messaging matrix: a listener that returns before its effect
 * ends, on a container factory with the dedup, fails the start-up, naming the listener and why; the
 * same listener on a factory without the dedup, and a listener that returns when its effect is done,
 * start.
 */
class AsyncListenerCheckTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    KafkaAutoConfiguration.class, RabbitAutoConfiguration.class, DupguardAutoConfiguration.class))
            .withPropertyValues(
                    "dupguard.store=memory",
                    "dupguard.http.enabled=false",
                    "spring.kafka.listener.auto-startup=false",
                    "spring.rabbitmq.listener.simple.auto-startup=false");

    public static class AsyncKafkaListener {
        @KafkaListener(topics = "refunds", groupId = "g")
        public CompletableFuture<Void> on(String refund) {
            return CompletableFuture.completedFuture(null);
        }
    }

    public static class SyncKafkaListener {
        @KafkaListener(topics = "refunds", groupId = "g")
        public void on(String refund) {}
    }

    public static class AsyncRabbitListener {
        @RabbitListener(queues = "refunds")
        public reactor.core.publisher.Mono<Void> on(String refund) {
            return reactor.core.publisher.Mono.empty();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AsyncKafka {
        @Bean
        AsyncKafkaListener asyncKafkaListener() {
            return new AsyncKafkaListener();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SyncKafka {
        @Bean
        SyncKafkaListener syncKafkaListener() {
            return new SyncKafkaListener();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AsyncRabbit {
        @Bean
        AsyncRabbitListener asyncRabbitListener() {
            return new AsyncRabbitListener();
        }
    }

    @Test
    void anAsynchronousKafkaListenerOnTheDedupFactoryFailsTheStartUpNamingItAndWhy() {
        runner.withUserConfiguration(AsyncKafka.class)
                .withPropertyValues("dupguard.kafka.default-factory=true")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("asyncKafkaListener.on returns CompletableFuture")
                            .hasMessageContaining("'kafkaListenerContainerFactory'")
                            .hasMessageContaining("skipped as a duplicate");
                });
    }

    @Test
    void anAsynchronousKafkaListenerWithoutTheDedupAndASynchronousOneWithItStart() {
        runner.withUserConfiguration(AsyncKafka.class)
                .run(context -> assertThat(context).hasNotFailed());
        runner.withUserConfiguration(SyncKafka.class)
                .withPropertyValues("dupguard.kafka.default-factory=true")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void anAsynchronousRabbitListenerOnTheDedupFactoryFailsTheStartUp() {
        runner.withUserConfiguration(AsyncRabbit.class)
                .withPropertyValues("dupguard.amqp.default-factory=true")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("asyncRabbitListener.on returns Mono")
                            .hasMessageContaining("'rabbitListenerContainerFactory'");
                });
        runner.withUserConfiguration(AsyncRabbit.class)
                .run(context -> assertThat(context).hasNotFailed());
    }
}

package io.dupguard.examples.payments;

import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The ledger topic ({@code payments.ledger.topic}), its dead-letter topic ({@code <topic>-dlt}, the suffix Spring Kafka's {@code DeadLetterPublishingRecoverer} uses by default) and
 * the error handler Boot puts in its default listener container factory: a record that fails is
 * retried twice, 200 ms apart, then published to the dead-letter topic with the reason in its
 * headers. dupguard's Kafka dedup ({@code dupguard.kafka.default-factory=true}) marks the records it
 * refuses (no key, an invalid key, a key reused with another value) as not retryable, so they go to
 * the dead-letter topic at once and alone: the rest of the poll commits.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "payments.ledger.enabled", havingValue = "true")
class LedgerMessaging {
    @Bean
    NewTopic ledger(@Value("${payments.ledger.topic}") String topic) {
        return TopicBuilder.name(topic).partitions(4).replicas(1).build();
    }

    @Bean
    NewTopic ledgerDeadLetters(@Value("${payments.ledger.topic}") String topic) {
        return TopicBuilder.name(topic + "-dlt").partitions(4).replicas(1).build();
    }

    @Bean
    DefaultErrorHandler ledgerErrorHandler(KafkaOperations<Object, Object> kafka) {
        return new DefaultErrorHandler(new DeadLetterPublishingRecoverer(kafka), new FixedBackOff(200, 2));
    }
}

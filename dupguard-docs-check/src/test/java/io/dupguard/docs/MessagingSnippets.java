package io.dupguard.docs;

import io.dupguard.spring.amqp.DedupAwareRetry;
import io.dupguard.spring.amqp.IdempotentMessageInterceptor;
import io.dupguard.spring.kafka.IdempotentKafkaInterceptor;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.amqp.autoconfigure.SimpleRabbitListenerContainerFactoryConfigurer;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;

/** The snippets of docs/messaging.md. */
class MessagingSnippets {

    static class Kafka {
        // tag::kafka[]
        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> dedupFactory(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers, IdempotentKafkaInterceptor dedup) {
            ConcurrentKafkaListenerContainerFactory<Object, Object> f = new ConcurrentKafkaListenerContainerFactory<>();
            configurer.configure(f, consumers);
            f.getContainerProperties().setAdviceChain(dedup);
            return f;
        }

        @KafkaListener(topics = "credits", containerFactory = "dedupFactory")
        void onCredit(ConsumerRecord<String, String> record) { /* ... */ }   // once per key, with its writes

        @KafkaListener(topics = "credits", containerFactory = "batchFactory")   // setBatchListener(true)
        void onCredits(List<ConsumerRecord<String, String>> records) { /* ... */ }   // only the new records
        // end::kafka[]
    }

    static class Rabbit {
        // tag::rabbit[]
        @Bean
        SimpleRabbitListenerContainerFactory dedupFactory(SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory, IdempotentMessageInterceptor dedup) {
            SimpleRabbitListenerContainerFactory f = new SimpleRabbitListenerContainerFactory();
            configurer.configure(f, connectionFactory);
            // innermost, around the listener only; every retry attempt of Boot's retry goes through it
            f.setAdviceChain(DedupAwareRetry.withDedup(f.getAdviceChain(), dedup));
            return f;
        }

        @RabbitListener(queues = "credits", containerFactory = "dedupFactory")
        void onCredit(Message message) { /* ... */ }      // runs once per message-id
        // end::rabbit[]
    }
}

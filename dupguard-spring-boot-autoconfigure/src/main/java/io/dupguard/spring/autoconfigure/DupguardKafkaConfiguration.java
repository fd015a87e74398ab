package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.spring.IdempotentExecution;
import io.dupguard.spring.kafka.IdempotentKafkaInterceptor;
import io.dupguard.spring.kafka.UndeduplicableRecordException;
import java.util.Arrays;
import org.aopalliance.aop.Advice;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.listener.DefaultErrorHandler;

/**
 * Kafka consumer dedup: the {@link IdempotentKafkaInterceptor} bean, to put in a container
 * factory's advice chain (opt-in per factory), and, with {@code dupguard.kafka.default-factory=true},
 * in Boot's default {@code kafkaListenerContainerFactory}. Every {@link DefaultErrorHandler} bean
 * treats {@link UndeduplicableRecordException} as not retryable.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({AbstractKafkaListenerContainerFactory.class, ConsumerRecord.class})
class DupguardKafkaConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotentKafkaInterceptor dupguardKafkaDeduplication(
            IdempotencyStore store,
            IdempotencyConfig config,
            DupguardProperties properties,
            ObjectProvider<ExecutionResolver> resolvers) {
        DupguardProperties.Kafka kafka = properties.getKafka();
        IdempotentExecution execution = ExecutionResolver.listener(
                resolvers, "the Kafka listener dedup", "dupguard.kafka", kafka, store, config);
        return new IdempotentKafkaInterceptor(execution, kafka.getScope(), keyOf(kafka), kafka.isRejectWithoutKey());
    }

    private static java.util.function.Function<ConsumerRecord<?, ?>, String> keyOf(DupguardProperties.Kafka kafka) {
        DupguardProperties.KafkaKey key = kafka.getKey() == null ? DupguardProperties.KafkaKey.OFFSET : kafka.getKey();
        return switch (key) {
            case OFFSET -> IdempotentKafkaInterceptor.offset();
            case RECORD_KEY -> IdempotentKafkaInterceptor.recordKey();
            case HEADER -> {
                if (kafka.getKeyHeader() == null || kafka.getKeyHeader().isBlank()) {
                    throw new InvalidDupguardPropertyException(
                            "dupguard.kafka.key-header", kafka.getKeyHeader(), "must name a header with key=header");
                }
                yield IdempotentKafkaInterceptor.header(kafka.getKeyHeader());
            }
        };
    }

    /** Records the dedup refuses are not retried by the application's error handlers. */
    @Bean
    static BeanPostProcessor dupguardKafkaErrorHandlers() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof DefaultErrorHandler handler) {
                    handler.addNotRetryableExceptions(UndeduplicableRecordException.class);
                }
                return bean;
            }
        };
    }

    @Bean
    @ConditionalOnProperty(name = "dupguard.kafka.default-factory", havingValue = "true")
    static BeanPostProcessor dupguardDefaultKafkaFactoryDedup(ObjectProvider<IdempotentKafkaInterceptor> dedup) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof AbstractKafkaListenerContainerFactory<?, ?, ?> factory
                        && "kafkaListenerContainerFactory".equals(beanName)) {
                    addTo(factory, dedup.getObject());
                }
                return bean;
            }
        };
    }

    /** An asynchronous {@code @KafkaListener} on a factory with the dedup fails the start-up ({@link AsyncListenerCheck}). */
    @Bean
    static BeanPostProcessor dupguardKafkaAsyncListenerCheck(org.springframework.beans.factory.BeanFactory beans) {
        return new AsyncListenerCheck(
                beans,
                org.springframework.kafka.annotation.KafkaListener.class,
                "kafkaListenerContainerFactory",
                "dupguard.kafka.default-factory, or an IdempotentKafkaInterceptor in its advice chain",
                factory -> factory instanceof AbstractKafkaListenerContainerFactory<?, ?, ?> f
                        && AsyncListenerCheck.holds(
                                f.getContainerProperties().getAdviceChain(), IdempotentKafkaInterceptor.class));
    }

    /** Appends {@code dedup} to the factory's advice chain (innermost, around the listener only). */
    static void addTo(AbstractKafkaListenerContainerFactory<?, ?, ?> factory, IdempotentKafkaInterceptor dedup) {
        Advice[] existing = factory.getContainerProperties().getAdviceChain();
        Advice[] chain = existing == null ? new Advice[1] : Arrays.copyOf(existing, existing.length + 1);
        chain[chain.length - 1] = dedup;
        factory.getContainerProperties().setAdviceChain(chain);
    }
}

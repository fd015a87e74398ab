package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.spring.IdempotentExecution;
import io.dupguard.spring.amqp.DedupAwareRetry;
import io.dupguard.spring.amqp.IdempotentMessageInterceptor;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * RabbitMQ consumer dedup: the {@link IdempotentMessageInterceptor} bean, to put in a container
 * factory's advice chain (opt-in per factory), and, with {@code dupguard.amqp.default-factory=true},
 * in Boot's default {@code rabbitListenerContainerFactory}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({SimpleRabbitListenerContainerFactory.class, Message.class})
class DupguardAmqpConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotentMessageInterceptor dupguardMessageDeduplication(
            IdempotencyStore store,
            IdempotencyConfig config,
            DupguardProperties properties,
            ObjectProvider<ExecutionResolver> resolvers) {
        DupguardProperties.Amqp amqp = properties.getAmqp();
        IdempotentExecution execution =
                ExecutionResolver.listener(resolvers, "the AMQP listener dedup", "dupguard.amqp", amqp, store, config);
        return new IdempotentMessageInterceptor(
                execution,
                amqp.getScope(),
                amqp.getKeyHeader() == null || amqp.getKeyHeader().isBlank()
                        ? IdempotentMessageInterceptor.messageId()
                        : IdempotentMessageInterceptor.header(amqp.getKeyHeader()),
                amqp.isRejectWithoutKey());
    }

    @Bean
    @ConditionalOnProperty(name = "dupguard.amqp.default-factory", havingValue = "true")
    static BeanPostProcessor dupguardDefaultFactoryDedup(ObjectProvider<IdempotentMessageInterceptor> dedup) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof SimpleRabbitListenerContainerFactory factory
                        && "rabbitListenerContainerFactory".equals(beanName)) {
                    factory.setAdviceChain(DedupAwareRetry.withDedup(factory.getAdviceChain(), dedup.getObject()));
                }
                return bean;
            }
        };
    }

    /** An asynchronous {@code @RabbitListener} on a factory with the dedup fails the start-up ({@link AsyncListenerCheck}). */
    @Bean
    static BeanPostProcessor dupguardAmqpAsyncListenerCheck(org.springframework.beans.factory.BeanFactory beans) {
        return new AsyncListenerCheck(
                beans,
                org.springframework.amqp.rabbit.annotation.RabbitListener.class,
                "rabbitListenerContainerFactory",
                "dupguard.amqp.default-factory, or an IdempotentMessageInterceptor in its advice chain",
                factory -> factory
                                instanceof
                                org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory<?> f
                        && AsyncListenerCheck.holds(f.getAdviceChain(), IdempotentMessageInterceptor.class));
    }

    /** Boot's listener retry around the dedup: the dedup's decisions are neither retried nor dead-lettered wrongly. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.amqp.autoconfigure.RabbitListenerRetrySettingsCustomizer")
    static class Retry {
        @Bean
        org.springframework.boot.amqp.autoconfigure.RabbitListenerRetrySettingsCustomizer dupguardDedupAwareRetry() {
            return settings -> settings.setExceptionPredicate(DedupAwareRetry.retried());
        }

        @Bean
        @ConditionalOnMissingBean(org.springframework.amqp.rabbit.retry.MessageRecoverer.class)
        org.springframework.amqp.rabbit.retry.MessageRecoverer dupguardDedupAwareRecoverer() {
            return DedupAwareRetry.recoverer();
        }
    }
}

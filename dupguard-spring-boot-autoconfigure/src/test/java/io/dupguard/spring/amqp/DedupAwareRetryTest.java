package io.dupguard.spring.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.config.RetryInterceptorBuilder;
import org.springframework.amqp.rabbit.retry.MessageRecoverer;
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;
import org.springframework.aop.framework.ProxyFactory;

/** Boot's listener retry and recoverer around dupguard's dedup, as the starter installs them. */
class DedupAwareRetryTest {
    private final Message message = new Message(new byte[0], new MessageProperties());

    @Test
    void listenerFailuresAreRetriedButTheDedupsDecisionsAreNot() {
        Predicate<Throwable> retried = DedupAwareRetry.retried();
        assertThat(retried.test(new ListenerExecutionFailedException("db down", new IllegalStateException())))
                .isTrue();
        assertThat(retried.test(new ImmediateRequeueAmqpException("in flight"))).isFalse();
        assertThat(retried.test(new AmqpRejectAndDontRequeueException("no key")))
                .isFalse();
        assertThat(retried.test(new RuntimeException(new AmqpRejectAndDontRequeueException("wrapped"))))
                .isFalse();
    }

    @Test
    void aDuplicateStillInFlightGoesBackToTheQueueInsteadOfTheDeadLetters() {
        MessageRecoverer recoverer = DedupAwareRetry.recoverer();
        // wrapped, so the container requeues it and its consumer goes on (a bare one restarts the consumer)
        assertThatThrownBy(() -> recoverer.recover(message, new ImmediateRequeueAmqpException("in flight")))
                .isInstanceOf(ListenerExecutionFailedException.class)
                .hasCauseInstanceOf(ImmediateRequeueAmqpException.class);
    }

    @Test
    void anythingElseIsRejectedWithoutRequeueSoTheBrokerDeadLettersIt() {
        MessageRecoverer recoverer = DedupAwareRetry.recoverer();
        assertThatThrownBy(() -> recoverer.recover(message, new IllegalStateException("poison")))
                .isInstanceOf(ListenerExecutionFailedException.class)
                .hasCauseInstanceOf(AmqpRejectAndDontRequeueException.class);
    }

    /** The listener's contract, proxied with the container's advice chain as Spring AMQP does. */
    interface Listener {
        void invokeListener(Object channel, Object data);
    }

    @Test
    void everyRetryAttemptRunsThroughTheDedupNotOnlyTheFirst() {
        // Boot's listener retry as the starter configures it: 3 attempts, then the recoverer.
        MethodInterceptor retry = RetryInterceptorBuilder.stateless()
                .maxRetries(2)
                .backOffOptions(1, 1.0, 1)
                .recoverer((m, cause) -> {})
                .build();
        List<String> dedupSaw = new ArrayList<>();
        MethodInterceptor dedup = invocation -> {
            dedupSaw.add("attempt");
            return invocation.proceed();
        };
        AtomicInteger runs = new AtomicInteger();
        Listener target = (channel, data) -> {
            if (runs.incrementAndGet() < 3) {
                throw new IllegalStateException("transient: pool timeout");
            }
        };
        ProxyFactory proxy = new ProxyFactory(target);
        proxy.addInterface(Listener.class);
        for (Advice advice : DedupAwareRetry.withDedup(new Advice[] {retry}, dedup)) {
            proxy.addAdvice(advice);
        }

        ((Listener) proxy.getProxy()).invokeListener(null, message);

        assertThat(runs).hasValue(3);
        // Spring AMQP's retry calls proceed() again on one invocation: without withDedup the second and
        // third attempts skip the dedup and run the listener bare (its writes commit without a record).
        assertThat(dedupSaw).hasSize(3);
    }
}

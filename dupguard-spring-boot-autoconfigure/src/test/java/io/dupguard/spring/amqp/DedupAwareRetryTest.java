package io.dupguard.spring.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.retry.MessageRecoverer;
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;

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
        assertThatThrownBy(() -> recoverer.recover(message, new ImmediateRequeueAmqpException("in flight")))
                .isInstanceOf(ImmediateRequeueAmqpException.class);
    }

    @Test
    void anythingElseIsRejectedWithoutRequeueSoTheBrokerDeadLettersIt() {
        MessageRecoverer recoverer = DedupAwareRetry.recoverer();
        assertThatThrownBy(() -> recoverer.recover(message, new IllegalStateException("poison")))
                .isInstanceOf(ListenerExecutionFailedException.class)
                .hasCauseInstanceOf(AmqpRejectAndDontRequeueException.class);
    }
}

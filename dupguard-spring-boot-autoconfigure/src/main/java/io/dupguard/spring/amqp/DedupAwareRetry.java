package io.dupguard.spring.amqp;

import java.util.function.Predicate;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.retry.MessageRecoverer;
import org.springframework.amqp.rabbit.retry.RejectAndDontRequeueRecoverer;

/**
 * Boot's listener retry ({@code spring.rabbitmq.listener.simple.retry.*}) around the {@link
 * IdempotentMessageInterceptor}: it retries failures of the listener, not the dedup's decisions.
 * The starter installs both parts when listener retry is in use:
 *
 * <ul>
 *   <li>{@link #retried()}: a duplicate still in flight ({@link ImmediateRequeueAmqpException}) and a
 *       rejection ({@link AmqpRejectAndDontRequeueException}: no key, or a key reused with another
 *       body) are not retried with back-off; they go to the recoverer at once;
 *   <li>{@link #recoverer()}: after the last attempt the message is rejected without requeue (the
 *       broker dead-letters it, as Boot's default recoverer does), except a duplicate still in
 *       flight, which goes back to the queue — dead-lettering it would lose it if the first copy
 *       then fails.
 * </ul>
 */
public final class DedupAwareRetry {
    private DedupAwareRetry() {}

    /**
     * Which exceptions the listener retry retries.
     *
     * @return true for a listener failure, false for the dedup's decisions; thread-safe
     */
    public static Predicate<Throwable> retried() {
        return e -> !causedBy(e, ImmediateRequeueAmqpException.class)
                && !causedBy(e, AmqpRejectAndDontRequeueException.class);
    }

    /**
     * The recoverer after the last attempt: reject without requeue, except a duplicate in flight.
     *
     * @return a recoverer; thread-safe
     */
    public static MessageRecoverer recoverer() {
        MessageRecoverer reject = new RejectAndDontRequeueRecoverer();
        return (Message message, Throwable cause) -> {
            if (causedBy(cause, ImmediateRequeueAmqpException.class)) {
                throw new ImmediateRequeueAmqpException("a copy of this message is still being processed", cause);
            }
            reject.recover(message, cause);
        };
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}

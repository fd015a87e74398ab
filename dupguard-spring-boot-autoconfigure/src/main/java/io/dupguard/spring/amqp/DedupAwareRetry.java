package io.dupguard.spring.amqp;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.retry.MessageBatchRecoverer;
import org.springframework.amqp.rabbit.retry.MessageRecoverer;
import org.springframework.amqp.rabbit.retry.RejectAndDontRequeueRecoverer;
import org.springframework.aop.ProxyMethodInvocation;

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
 *       then fails. For a batch listener it rejects every message of the batch without requeue
 *       (each is dead-lettered; the listener's transaction rolled back their effects and keys), and
 *       requeues the batch when a copy in it is still in flight: Spring AMQP acknowledges a batch
 *       whose recoverer is not a {@link MessageBatchRecoverer}, so with a plain recoverer every
 *       message of the batch would be acknowledged without its effect;
 *   <li>{@link #withDedup(Advice[], Advice)}: the advice chain with the dedup appended, each advice
 *       before it made to run the rest of the chain afresh on every call: Spring AMQP's retry
 *       interceptor retries by calling {@code proceed()} again on one invocation, which past the
 *       first attempt goes straight to the listener — the retries would run without the dedup.
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
     * The recoverer after the last attempt: reject without requeue (a batch: every message of it),
     * except a duplicate in flight, which is requeued.
     *
     * @return a recoverer; thread-safe
     */
    public static MessageBatchRecoverer recoverer() {
        MessageRecoverer reject = new RejectAndDontRequeueRecoverer();
        return new MessageBatchRecoverer() {
            @Override
            public void recover(Message message, Throwable cause) {
                requeueIfInFlight(cause, message);
                reject.recover(message, cause);
            }

            @Override
            public void recover(List<Message> messages, Throwable cause) {
                requeueIfInFlight(cause, messages.toArray(new Message[0]));
                throw new AmqpRejectAndDontRequeueException(
                        "the batch of " + messages.size()
                                + " messages failed on every retry; each is rejected without requeue",
                        cause);
            }
        };
    }

    private static void requeueIfInFlight(Throwable cause, Message... messages) {
        if (causedBy(cause, ImmediateRequeueAmqpException.class)) {
            throw IdempotentMessageInterceptor.requeued(
                    "a copy of this message is still being processed", cause, messages);
        }
    }

    /**
     * The advice chain with {@code dedup} appended, so that every attempt of a retry advice before it
     * runs through the dedup. Each {@link MethodInterceptor} of {@code chain} is wrapped: its
     * {@code proceed()} continues on a fresh copy of the invocation ({@link
     * ProxyMethodInvocation#invocableClone()}), so a second {@code proceed()} — a retry — runs the
     * advices after it again instead of only the listener.
     *
     * @param chain the container factory's advice chain (Boot's retry interceptor, say), or null
     * @param dedup the dedup interceptor; not null
     * @return a new chain, the dedup last; thread-safe
     */
    public static Advice[] withDedup(Advice[] chain, Advice dedup) {
        Objects.requireNonNull(dedup, "dedup");
        Advice[] before = chain == null ? new Advice[0] : chain;
        Advice[] result = Arrays.copyOf(before, before.length + 1);
        for (int i = 0; i < before.length; i++) {
            if (before[i] instanceof MethodInterceptor interceptor && !(before[i] instanceof EachCallThroughTheChain)) {
                result[i] = new EachCallThroughTheChain(interceptor);
            }
        }
        result[before.length] = dedup;
        return result;
    }

    /** An interceptor whose every {@code proceed()} runs the rest of the chain from its position. */
    private record EachCallThroughTheChain(MethodInterceptor delegate) implements MethodInterceptor {
        @Override
        public Object invoke(MethodInvocation invocation) throws Throwable {
            if (!(invocation instanceof ProxyMethodInvocation proxied)) {
                return delegate.invoke(invocation);
            }
            return delegate.invoke(new MethodInvocation() {
                @Override
                public Method getMethod() {
                    return proxied.getMethod();
                }

                @Override
                public Object[] getArguments() {
                    return proxied.getArguments();
                }

                @Override
                public Object proceed() throws Throwable {
                    return proxied.invocableClone().proceed();
                }

                @Override
                public Object getThis() {
                    return proxied.getThis();
                }

                @Override
                public AccessibleObject getStaticPart() {
                    return proxied.getStaticPart();
                }
            });
        }
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

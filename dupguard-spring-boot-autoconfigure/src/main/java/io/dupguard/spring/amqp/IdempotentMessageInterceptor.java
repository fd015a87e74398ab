package io.dupguard.spring.amqp;

import com.rabbitmq.client.Channel;
import io.dupguard.DupguardException;
import io.dupguard.InvalidIdentifierException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.idempotency.RequestInFlightException;
import io.dupguard.spring.DeliveryBatch;
import io.dupguard.spring.IdempotentExecution;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;

/**
 * Consumer-side deduplication for Spring AMQP listener containers: add it to a container factory's
 * advice chain ({@code factory.setAdviceChain(interceptor)}) and every delivery runs the listener at
 * most once per key — by default the AMQP {@code message-id}.
 *
 * <p><b>Where the record commits</b> is the {@link IdempotentExecution}'s choice. In the
 * transactional modes ({@link io.dupguard.spring.TransactionalExecution}) the listener runs in a
 * database transaction with the key's row: its writes on the application's DataSource and the
 * record commit together, so a consumer that dies before the commit leaves nothing (the redelivery
 * runs) and one that dies after it leaves the record (the redelivery is acknowledged without
 * running). In store mode the record completes after the listener returned: a consumer that dies in
 * between leaves the claim in flight, and the redelivery runs again once its lease ends.
 *
 * <ul>
 *   <li>first delivery of a key: the listener runs; when it returns, the key is recorded and the
 *       container acknowledges;
 *   <li>a duplicate (re-publish, redelivery after a lost ack): acknowledged without running the
 *       listener;
 *   <li>a duplicate while the first is still processing: waits up to the executor's in-flight wait
 *       for it to finish (then acknowledged as a duplicate), otherwise is requeued ({@link
 *       ImmediateRequeueAmqpException}) to be delivered again later — never run twice;
 *   <li>the listener fails: the key is released and the exception goes to the container, whose
 *       retry / dead-letter policy acts;
 *   <li>same key with a different body: rejected without requeue ({@link
 *       AmqpRejectAndDontRequeueException}: dead-lettered where a DLX is configured);
 *   <li>no key (no message-id): rejected without requeue (dead-lettered where a DLX is
 *       configured), with a warning naming the queue; or passed through, as configured.
 * </ul>
 *
 * <p><b>Batch listeners</b> (a {@code List<Message>} per call: {@code consumerBatchEnabled}, {@code
 * batchListener}): each message of the batch is claimed by its key ({@link DeliveryBatch}); the
 * listener is called with the messages that are new (duplicates, and later copies of a key with the
 * same body, are left out; a batch of nothing but duplicates does not call it); when it returns,
 * every claimed key is recorded. A message that cannot run — no key, an invalid key, a body that
 * differs from its key's, or still in flight elsewhere after the in-flight wait — is settled alone on
 * the consumer's channel (rejected without requeue, dead-lettered where a DLX exists; or requeued),
 * the rest of the batch runs (the messages after it in a listener call of their own) and the
 * container acknowledges what remains unsettled with its multiple ack of the batch's last delivery
 * tag (acknowledge mode AUTO, the default). When that last message is the one that cannot run, the
 * others are acknowledged one by one and the exception for it goes to the container, whose reject
 * then covers only it. Without the channel in the advised call the container
 * settles the whole batch (rejected or requeued). If the listener throws, every key of the call is
 * released and the container's policy acts on the whole batch; so it does when the dedup itself fails
 * (the store unreachable, for the batch's claim or while a message waits for its key in flight
 * elsewhere), which reaches the container as a listener failure ({@link
 * ListenerExecutionFailedException}).
 *
 * <p>A listener method returning a {@code CompletableFuture}, {@code Mono} or any other future or
 * publisher is not supported: its key would be recorded when the method returns, before the
 * asynchronous work ends. With the starter, a {@code @RabbitListener} method of that kind on a
 * factory whose advice chain holds this interceptor fails the application's start-up.
 *
 * <p>Thread-safe.
 */
public class IdempotentMessageInterceptor implements MethodInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(IdempotentMessageInterceptor.class);

    private final IdempotentExecution execution;
    private final String scope;
    private final Function<Message, String> key;
    private final boolean rejectWithoutKey;

    /**
     * @param idempotency executor; give it an in-flight policy that waits (say 5 s) so that a
     *     concurrent duplicate acknowledges once the first finishes instead of being requeued
     * @param scope scope of the keys, {@code [A-Za-z0-9._-]{1,64}}
     * @param key the key of a message, or null when it has none
     * @param rejectWithoutKey reject (no requeue) messages without a key instead of passing them
     */
    public IdempotentMessageInterceptor(
            Idempotency idempotency, String scope, Function<Message, String> key, boolean rejectWithoutKey) {
        this(
                IdempotentExecution.store(Objects.requireNonNull(idempotency, "idempotency")),
                scope,
                key,
                rejectWithoutKey);
    }

    /**
     * A dedup whose records commit as {@code execution} says.
     *
     * @param execution runs each keyed delivery; in store and backstop modes give its executor an
     *     in-flight policy that waits (say 5 s); not null
     * @param scope scope of the keys, {@code [A-Za-z0-9._-]{1,64}}
     * @param key the key of a message, or null when it has none
     * @param rejectWithoutKey reject (no requeue) messages without a key instead of passing them
     */
    public IdempotentMessageInterceptor(
            IdempotentExecution execution, String scope, Function<Message, String> key, boolean rejectWithoutKey) {
        this.execution = Objects.requireNonNull(execution, "execution");
        this.scope = IdempotencyKey.of(scope, "x").scope();
        this.key = Objects.requireNonNull(key, "key");
        this.rejectWithoutKey = rejectWithoutKey;
    }

    /**
     * Keys by the AMQP message-id property.
     *
     * @return a key function; thread-safe, null for a message without a message-id
     */
    public static Function<Message, String> messageId() {
        return m -> m.getMessageProperties().getMessageId();
    }

    /**
     * Keys by a message header.
     *
     * @param name the header name; not null
     * @return a key function; thread-safe, null for a message without the header
     */
    public static Function<Message, String> header(String name) {
        Objects.requireNonNull(name, "name");
        return m -> {
            Object v = m.getMessageProperties().getHeader(name);
            return v == null ? null : v.toString();
        };
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object[] args = invocation.getArguments();
        if (args.length >= 2 && args[1] instanceof List<?> batch) {
            return invokeBatch(invocation, args, batch);
        }
        if (args.length < 2 || !(args[1] instanceof Message message)) {
            return invocation.proceed();
        }
        String k = key.apply(message);
        if (k == null || k.isBlank()) {
            if (rejectWithoutKey) {
                throw keyless(message, "message");
            }
            return invocation.proceed();
        }
        IdempotencyKey idempotencyKey;
        try {
            idempotencyKey = IdempotencyKey.of(scope, k);
        } catch (InvalidIdentifierException e) {
            throw new AmqpRejectAndDontRequeueException("message key refused: " + e.getMessage(), e);
        }
        Fingerprint body = Fingerprint.of(message.getBody() == null ? new byte[0] : message.getBody());
        try {
            execution.execute(idempotencyKey, body, Void.class, () -> {
                DeliveryBatch.proceed(invocation);
                return null;
            });
            return null;
        } catch (RequestInFlightException e) {
            LOG.debug("duplicate of {} while the first is still processing; requeued", idempotencyKey);
            throw requeued("duplicate of " + idempotencyKey + " still processing; requeued", e, message);
        } catch (PayloadMismatchException e) {
            throw new AmqpRejectAndDontRequeueException(
                    "message " + idempotencyKey + " was already processed with a different body", e);
        } catch (DupguardException e) {
            throw failed("dedup of " + idempotencyKey + " failed: " + e.getMessage(), e, message);
        }
    }

    private Object invokeBatch(MethodInvocation invocation, Object[] args, List<?> batch) throws Throwable {
        List<Message> messages = new ArrayList<>();
        for (Object o : batch) {
            if (!(o instanceof Message m)) {
                return invocation.proceed(); // not a batch of messages: nothing to deduplicate by
            }
            messages.add(m);
        }
        Channel channel = args[0] instanceof Channel c ? c : null;
        List<Message> rejected = new ArrayList<>();
        List<Message> requeued = new ArrayList<>();
        RuntimeException lastRefusal = null;
        RequestInFlightException lastInFlight = null;
        List<Message> rest = messages;
        while (!rest.isEmpty()) {
            DeliveryBatch<Message> deliveries = new DeliveryBatch<>();
            for (Message m : rest) {
                String k = key.apply(m);
                if (k == null || k.isBlank()) {
                    if (rejectWithoutKey) {
                        deliveries.refuse(m, keyless(m, "batch message"));
                    } else {
                        deliveries.add(m, null, Fingerprint.none());
                    }
                    continue;
                }
                try {
                    deliveries.add(m, IdempotencyKey.of(scope, k), body(m));
                } catch (InvalidIdentifierException e) {
                    deliveries.refuse(
                            m,
                            new AmqpRejectAndDontRequeueException("batch message key refused: " + e.getMessage(), e));
                }
            }
            DeliveryBatch.Stop<Message> stop;
            try {
                stop = deliveries.run(
                        execution,
                        fresh -> {
                            args[1] = fresh;
                            DeliveryBatch.proceed(invocation);
                            return null;
                        },
                        (e, fresh) -> null);
            } catch (DupguardException e) {
                args[1] = batch;
                throw failed(
                        "dedup of a batch of " + messages.size() + " messages failed: " + e.getMessage(),
                        e,
                        messages.toArray(new Message[0]));
            }
            if (stop == null) {
                break;
            }
            if (stop instanceof DeliveryBatch.InFlight<Message> f) {
                LOG.debug(
                        "batch message {} is still processing elsewhere; requeued alone",
                        f.cause().key());
                requeued.add(f.delivery());
                lastInFlight = f.cause();
            } else if (stop instanceof DeliveryBatch.Refused<Message> f) {
                lastRefusal = f.reason() instanceof PayloadMismatchException m
                        ? new AmqpRejectAndDontRequeueException(
                                "batch message " + m.key() + " was already processed with a different body", m)
                        : f.reason();
                LOG.warn("batch message rejected alone: {}", lastRefusal.getMessage());
                rejected.add(f.delivery());
            } else if (stop instanceof DeliveryBatch.Failed<Message> f) {
                // A message whose key was in flight elsewhere runs alone, after the rest: its dedup
                // failed (the store unreachable while it waited) or its listener threw. Either goes
                // to the container for the whole batch, as a listener failure it settles and goes on
                // from; thrown bare, it would end the consumer's loop.
                args[1] = batch;
                if (f.cause() instanceof DupguardException e) {
                    throw failed(
                            "dedup of batch message " + key.apply(f.delivery()) + " failed: " + e.getMessage(),
                            e,
                            messages.toArray(new Message[0]));
                }
                throw f.cause(); // the listener's, as the container's adapter wrapped it
            } else {
                throw new IllegalStateException("unexpected batch outcome " + stop);
            }
            rest = rest.subList(stop.index() + 1, rest.size());
        }
        args[1] = batch;
        if (rejected.isEmpty() && requeued.isEmpty()) {
            return null;
        }
        Message last = messages.get(0); // the container settles the batch by its highest delivery tag
        for (Message m : messages) {
            if (m.getMessageProperties().getDeliveryTag()
                    > last.getMessageProperties().getDeliveryTag()) {
                last = m;
            }
        }
        if (channel == null) { // no channel to settle single messages on: the container settles the batch
            if (!rejected.isEmpty()) {
                throw new AmqpRejectAndDontRequeueException("batch holds a message dupguard refused", lastRefusal);
            }
            throw requeued(
                    "batch holds a duplicate still processing; requeued",
                    lastInFlight,
                    messages.toArray(new Message[0]));
        }
        // Each refused or in-flight message is settled alone; the container settles the last delivery
        // tag of the batch with multiple=true, which then covers only the last message.
        for (Message m : rejected) {
            if (m != last) {
                channel.basicNack(m.getMessageProperties().getDeliveryTag(), false, false);
            }
        }
        for (Message m : requeued) {
            if (m != last) {
                channel.basicNack(m.getMessageProperties().getDeliveryTag(), false, true);
            }
        }
        if (rejected.contains(last) || requeued.contains(last)) {
            // the container's multiple reject of the last tag would take the unsettled messages with it
            for (Message m : messages) {
                if (!rejected.contains(m) && !requeued.contains(m)) {
                    channel.basicAck(m.getMessageProperties().getDeliveryTag(), false);
                }
            }
        }
        if (rejected.contains(last)) {
            throw new AmqpRejectAndDontRequeueException("last message of the batch refused", lastRefusal);
        }
        if (requeued.contains(last)) {
            throw requeued("last message of the batch still processing; requeued", lastInFlight, last);
        }
        return null;
    }

    /**
     * A requeue the container settles and goes on from: an {@link ImmediateRequeueAmqpException}
     * inside a {@link ListenerExecutionFailedException}. Thrown bare from an advice (outside the
     * listener adapter, which wraps what the listener throws), the requeue ends the consumer's loop:
     * the container restarts the consumer, and the message waits for the restart.
     */
    static ListenerExecutionFailedException requeued(String why, Throwable cause, Message... messages) {
        return new ListenerExecutionFailedException(why, new ImmediateRequeueAmqpException(why, cause), messages);
    }

    /**
     * A failure of the dedup itself — the store unreachable, a completion refused or not stored, a
     * stored failure replayed — as the container's own listener failures are: a {@link
     * ListenerExecutionFailedException}, which the container settles as its rejection policy says
     * (requeue by default; listener retry retries it) and goes on from. Thrown bare from an advice,
     * it would end the consumer's loop: the container restarts the consumer, and an auto-delete
     * queue whose only consumer that was is deleted with the requeued message.
     */
    static ListenerExecutionFailedException failed(String why, DupguardException cause, Message... messages) {
        return new ListenerExecutionFailedException(why, cause, messages);
    }

    private static Fingerprint body(Message m) {
        return Fingerprint.of(m.getBody() == null ? new byte[0] : m.getBody());
    }

    /** Rejects a keyless delivery without requeue (no hot loop), naming its queue. */
    private static AmqpRejectAndDontRequeueException keyless(Message message, String what) {
        String queue = message.getMessageProperties().getConsumerQueue();
        LOG.warn(
                "{} without an idempotency key from queue {} rejected without requeue (dead-lettered where the queue"
                        + " has a dead-letter exchange): publishers must set the message-id (or the configured key"
                        + " header); dupguard.amqp.reject-without-key=false lets such messages run undeduplicated",
                what,
                queue);
        return new AmqpRejectAndDontRequeueException(
                what + " without an idempotency key (message-id) from queue " + queue + " rejected");
    }
}

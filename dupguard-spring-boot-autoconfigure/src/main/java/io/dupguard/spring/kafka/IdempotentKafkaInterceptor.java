package io.dupguard.spring.kafka;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.spring.DeliveryBatch;
import io.dupguard.spring.IdempotentExecution;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.support.Acknowledgment;

/**
 * Consumer-side deduplication for Spring Kafka listener containers: add it to a container's advice
 * chain ({@code factory.getContainerProperties().setAdviceChain(interceptor)}) and each record runs
 * the listener at most once per key — the record's topic, partition and offset by default, or a
 * producer-set header, or the record key.
 *
 * <ul>
 *   <li>first delivery of a key: the listener runs; its record is committed with its database
 *       writes (transactional modes) and the container commits the offset;
 *   <li>a duplicate (redelivered after a consumer died before its offset commit or after a
 *       rebalance, or re-sent by a producer with the same header): the listener is not called; the
 *       container commits the offset;
 *   <li>a duplicate still processing on another consumer (a rebalance moved its partition): {@link
 *       io.dupguard.idempotency.RequestInFlightException} goes to the container's error handler,
 *       which seeks back and delivers it again after its back-off — never run twice;
 *   <li>the listener throws: the key is released (transactional modes: with the listener's writes
 *       rolled back) and the error handler acts (retry, then its recoverer, e.g. a dead-letter
 *       topic);
 *   <li>no key (the configured header or record key is missing), or a key reused with another
 *       value: {@link UndeduplicableRecordException}, which the starter marks not retryable on the
 *       error handlers it configures — the recoverer acts at once.
 * </ul>
 *
 * <p><b>Batch listeners</b> ({@code List<ConsumerRecord>} or {@code ConsumerRecords}) receive only
 * the new records of the poll in one call ({@link DeliveryBatch}): every key is claimed (in the
 * transactional modes in one transaction with the listener's writes), duplicates and later copies
 * of a key with the same value are left out, and a poll of nothing but duplicates does not call the
 * listener. A record that cannot run is mapped onto Spring Kafka's partial-batch protocol: a {@link
 * BatchListenerFailedException} naming that record of the poll, so the error handler ({@code
 * DefaultErrorHandler}) commits the offsets before it, retries or recovers that record alone (e.g.
 * to a dead-letter topic) and seeks back to the ones after it. Per record:
 *
 * <ul>
 *   <li>no key ({@code reject-without-key=true}), an invalid key, a later copy of a key in the poll
 *       with another value, or a key already processed with another value: the records before it
 *       run and are recorded; it fails alone with an {@link UndeduplicableRecordException} cause
 *       (not retried by the starter-configured handlers: recovered at once); the ones after it are
 *       redelivered by the seek (those that ran already are duplicates then);
 *   <li>in flight on another consumer: after the rest of the poll it is claimed alone, waiting as the
 *       executor's in-flight policy says ({@code dupguard.kafka.in-flight-wait}); still in flight, it
 *       fails alone with a {@link io.dupguard.idempotency.RequestInFlightException} cause: the error
 *       handler retries it from there after its back-off, then recovers it;
 *   <li>the listener throws {@link BatchListenerFailedException} for one of the records it got (by
 *       record, or by index into its list): that record fails alone, named by its place in the
 *       poll; the records before it stay done with their records — in store mode they are recorded
 *       as they ran, in the transactional and backstop modes (whose transaction the failure rolled
 *       back) the listener is called once more with them alone and they commit;
 *   <li>the listener throws anything else: every claim of the poll is released (transactional: with
 *       its writes) and the error handler acts on the whole poll — in store mode a retry repeats the
 *       effects the listener had made before it threw;
 *   <li>{@link Acknowledgment#nack(int, Duration)} with an index into the listener's list: the records
 *       before it are recorded, the claims from it on are released, and the nack reaches the
 *       container as the index of that record in the poll; {@code acknowledge()} reaches it only when
 *       the whole poll is done; {@code acknowledge(index)} is refused ({@link
 *       UnsupportedOperationException});
 *   <li>no key with {@code reject-without-key=false}: runs in the listener call with the others, at
 *       least once — again when the poll stopped at a record before it;
 *   <li>a listener method returning a {@code CompletableFuture}, {@code Mono} or any other future
 *       or publisher: not supported, since its records would be recorded when the method returns,
 *       before the asynchronous work ends. With the starter, a {@code @KafkaListener} method of that
 *       kind on a factory whose advice chain holds this interceptor fails the application's start-up.
 * </ul>
 *
 * <p>Thread-safe.
 */
public class IdempotentKafkaInterceptor implements MethodInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(IdempotentKafkaInterceptor.class);

    private final IdempotentExecution execution;
    private final String scope;
    private final Function<ConsumerRecord<?, ?>, String> key;
    private final String keySource;
    private final boolean rejectWithoutKey;

    /**
     * A dedup whose records commit as {@code execution} says.
     *
     * @param execution runs each keyed record; not null
     * @param scope scope of the keys, {@code [A-Za-z0-9._-]{1,64}}
     * @param key the key of a record, or null when it has none ({@link #offset()}, {@link
     *     #header(String)}, {@link #recordKey()}); not null
     * @param rejectWithoutKey refuse records without a key ({@link UndeduplicableRecordException})
     *     instead of running them undeduplicated
     */
    public IdempotentKafkaInterceptor(
            IdempotentExecution execution,
            String scope,
            Function<ConsumerRecord<?, ?>, String> key,
            boolean rejectWithoutKey) {
        this.execution = Objects.requireNonNull(execution, "execution");
        this.scope = IdempotencyKey.of(scope, "x").scope();
        this.key = Objects.requireNonNull(key, "key");
        this.keySource = key.toString();
        this.rejectWithoutKey = rejectWithoutKey;
    }

    /** A key function with a name for messages. */
    private record Named(String name, Function<ConsumerRecord<?, ?>, String> f)
            implements Function<ConsumerRecord<?, ?>, String> {
        @Override
        public String apply(ConsumerRecord<?, ?> r) {
            return f.apply(r);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * Keys by topic, partition and offset: always present; covers redelivery of the same record (a
     * consumer that died before its offset commit, a rebalance), not a producer's re-send (a new
     * offset). Keys of a topic deleted and created again repeat until their records' retention ends.
     *
     * @return a key function; thread-safe, never null for a record
     */
    public static Function<ConsumerRecord<?, ?>, String> offset() {
        return new Named("topic-partition-offset", r -> r.topic() + "-" + r.partition() + "@" + r.offset());
    }

    /**
     * Keys by the last header named {@code name} (UTF-8): a message id the producer sets, which also
     * covers the producer's re-sends.
     *
     * @param name the header name; not null
     * @return a key function; thread-safe, null for a record without the header
     */
    public static Function<ConsumerRecord<?, ?>, String> header(String name) {
        Objects.requireNonNull(name, "name");
        return new Named("header " + name, r -> {
            Header h = r.headers().lastHeader(name);
            return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
        });
    }

    /**
     * Keys by the record key ({@code String} as is, {@code byte[]} as UTF-8, others by {@code
     * toString()}): for topics whose key identifies the message, not the entity (an order id keyed
     * topic carries many messages per key).
     *
     * @return a key function; thread-safe, null for a record without a key
     */
    public static Function<ConsumerRecord<?, ?>, String> recordKey() {
        return new Named("record key", r -> {
            Object k = r.key();
            if (k == null) {
                return null;
            }
            return k instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : k.toString();
        });
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object[] args = invocation.getArguments();
        if (args.length == 0 || !invocation.getMethod().getName().equals("onMessage")) {
            return invocation.proceed();
        }
        if (args[0] instanceof ConsumerRecord<?, ?> record) {
            return invokeRecord(invocation, record);
        }
        if (args[0] instanceof List<?> list) {
            return invokeBatch(invocation, args, list, null);
        }
        if (args[0] instanceof ConsumerRecords<?, ?> polled) {
            List<ConsumerRecord<?, ?>> list = new ArrayList<>();
            polled.forEach(list::add);
            return invokeBatch(invocation, args, list, polled);
        }
        return invocation.proceed();
    }

    private IdempotencyKey keyOf(ConsumerRecord<?, ?> record) {
        String k = key.apply(record);
        if (k == null || k.isBlank()) {
            if (rejectWithoutKey) {
                LOG.warn(
                        "record {}-{}@{} has no idempotency key ({}); refused: set it on the producer, or"
                                + " dupguard.kafka.reject-without-key=false runs such records undeduplicated",
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        keySource);
                throw new UndeduplicableRecordException("record " + record.topic() + "-" + record.partition() + "@"
                        + record.offset() + " has no idempotency key (" + keySource + ")");
            }
            return null;
        }
        try {
            return IdempotencyKey.of(scope, k);
        } catch (InvalidIdentifierException e) {
            throw new UndeduplicableRecordException("record key refused: " + e.getMessage(), e);
        }
    }

    private static Fingerprint fingerprint(ConsumerRecord<?, ?> record) {
        Object v = record.value();
        if (v instanceof byte[] b) {
            return Fingerprint.of(b);
        }
        if (v instanceof String s) {
            return Fingerprint.ofString(s);
        }
        return Fingerprint.none();
    }

    private Object invokeRecord(MethodInvocation invocation, ConsumerRecord<?, ?> record) throws Throwable {
        IdempotencyKey k = keyOf(record);
        if (k == null) {
            return invocation.proceed();
        }
        try {
            execution.execute(k, fingerprint(record), Void.class, () -> {
                DeliveryBatch.proceed(invocation);
                return null;
            });
            return null;
        } catch (PayloadMismatchException e) {
            throw new UndeduplicableRecordException("record " + k + " was already processed with a different value", e);
        }
    }

    private Object invokeBatch(MethodInvocation invocation, Object[] args, List<?> batch, ConsumerRecords<?, ?> polled)
            throws Throwable {
        DeliveryBatch<ConsumerRecord<?, ?>> deliveries = new DeliveryBatch<>();
        for (Object o : batch) {
            if (!(o instanceof ConsumerRecord<?, ?> r)) {
                return invocation.proceed(); // a batch of converted payloads: nothing to deduplicate by
            }
            IdempotencyKey k;
            try {
                k = keyOf(r);
            } catch (UndeduplicableRecordException e) {
                deliveries.refuse(r, e);
                continue;
            }
            deliveries.add(r, k, fingerprint(r));
        }
        int ackAt = -1;
        for (int i = 1; i < args.length; i++) {
            if (args[i] instanceof Acknowledgment) {
                ackAt = i;
            }
        }
        Acknowledgment ack = ackAt < 0 ? null : (Acknowledgment) args[ackAt];
        DeferredAck deferred = ack == null ? null : new DeferredAck();
        int ackIndex = ackAt;
        DeliveryBatch.Stop<ConsumerRecord<?, ?>> stop = deliveries.run(
                execution,
                fresh -> {
                    args[0] = polled == null ? fresh : polledOf(fresh, polled);
                    if (deferred != null) {
                        deferred.fresh = fresh;
                        deferred.nackedAt = -1;
                        args[ackIndex] = deferred;
                    }
                    DeliveryBatch.proceed(invocation);
                    return deferred == null || deferred.nackedAt < 0 ? null : fresh.get(deferred.nackedAt);
                },
                IdempotentKafkaInterceptor::failedRecord);
        if (ackIndex >= 0) {
            args[ackIndex] = ack;
        }
        if (stop == null) {
            if (deferred != null && deferred.acknowledged) {
                ack.acknowledge();
            }
            return null;
        }
        ConsumerRecord<?, ?> r = stop.delivery();
        String where = r.topic() + "-" + r.partition() + "@" + r.offset();
        if (stop instanceof DeliveryBatch.Unfinished<ConsumerRecord<?, ?>> u) {
            ack.nack(u.index(), deferred.sleep);
            return null;
        }
        if (stop instanceof DeliveryBatch.Refused<ConsumerRecord<?, ?>> f) {
            RuntimeException reason = f.reason() instanceof PayloadMismatchException m
                    ? new UndeduplicableRecordException(
                            "record " + where + " (" + m.key() + ") was already processed with a different value", m)
                    : f.reason();
            LOG.warn("batch record {} refused ({}); the records before it are done", where, reason.getMessage());
            throw new BatchListenerFailedException(reason.getMessage(), reason, r);
        }
        if (stop instanceof DeliveryBatch.InFlight<ConsumerRecord<?, ?>> f) {
            LOG.debug("batch record {} is still processing elsewhere; redelivered from it", where);
            throw new BatchListenerFailedException("record " + where + " is still processing elsewhere", f.cause(), r);
        }
        Exception failure = ((DeliveryBatch.Failed<ConsumerRecord<?, ?>>) stop).cause();
        BatchListenerFailedException named = named(failure);
        // the listener's own reason: its BatchListenerFailedException's cause, or that exception itself
        Throwable cause = named == null ? failure : named.getCause() != null ? named.getCause() : named;
        throw new BatchListenerFailedException(
                "listener failed at record " + where + ": " + cause.getMessage(), cause, r);
    }

    /** The record of {@code fresh} a listener's {@link BatchListenerFailedException} names (by record or index). */
    private static ConsumerRecord<?, ?> failedRecord(Exception e, List<ConsumerRecord<?, ?>> fresh) {
        BatchListenerFailedException named = named(e);
        if (named == null) {
            return null;
        }
        ConsumerRecord<?, ?> r = named.getRecord();
        if (r != null) {
            for (ConsumerRecord<?, ?> f : fresh) {
                if (f == r
                        || (f.topic().equals(r.topic())
                                && f.partition() == r.partition()
                                && f.offset() == r.offset())) {
                    return f;
                }
            }
            return null;
        }
        int i = named.getIndex();
        return i >= 0 && i < fresh.size() ? fresh.get(i) : null;
    }

    private static BatchListenerFailedException named(Throwable e) {
        Set<Throwable> seen = new HashSet<>();
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof BatchListenerFailedException b) {
                return b;
            }
        }
        return null;
    }

    /**
     * The listener's {@link Acknowledgment}: {@code acknowledge()} is passed on when the whole poll is
     * done (otherwise the error handler commits the offsets before the failed record), and {@code
     * nack(index)} — an index into the records the listener got — is passed on as the index of that
     * record in the poll, after the claims from it on were released.
     */
    private static final class DeferredAck implements Acknowledgment {
        List<ConsumerRecord<?, ?>> fresh = List.of();
        int nackedAt = -1;
        Duration sleep = Duration.ZERO;
        boolean acknowledged;

        @Override
        public void acknowledge() {
            acknowledged = true;
        }

        /**
         * Not supported: a partial acknowledgment would commit offsets before the records' dedup rows
         * commit.
         *
         * @throws UnsupportedOperationException always
         */
        @Override
        public void acknowledge(int index) {
            throw new UnsupportedOperationException("acknowledge(index) is not supported behind dupguard's batch"
                    + " dedup (the offsets would commit before the records' dedup rows): use acknowledge(), or"
                    + " nack(index, sleep) for the records from index on");
        }

        @Override
        public void nack(int index, Duration sleep) {
            if (index < 0 || index >= fresh.size()) {
                throw new IllegalArgumentException(
                        "index must be in [0, " + fresh.size() + ") (the records the listener got), was " + index);
            }
            this.nackedAt = index;
            this.sleep = Objects.requireNonNull(sleep, "sleep");
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ConsumerRecords<?, ?> polledOf(List<ConsumerRecord<?, ?>> fresh, ConsumerRecords<?, ?> polled) {
        Map<TopicPartition, List<ConsumerRecord>> byPartition = new LinkedHashMap<>();
        for (ConsumerRecord<?, ?> r : fresh) {
            byPartition
                    .computeIfAbsent(new TopicPartition(r.topic(), r.partition()), tp -> new ArrayList<>())
                    .add(r);
        }
        return new ConsumerRecords(byPartition, polled.nextOffsets());
    }
}

package io.dupguard.spring.kafka;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.spring.DeliveryBatch;
import io.dupguard.spring.IdempotentExecution;
import java.nio.charset.StandardCharsets;
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
 * the new records: every key of the batch is claimed (in the transactional modes in one transaction
 * with the listener's writes), later copies of a key within the batch and duplicates are left out,
 * and a batch of nothing but duplicates does not call the listener. If the listener throws, every
 * claim of the batch is released.
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
        Set<IdempotencyKey> seen = new HashSet<>();
        for (Object o : batch) {
            if (!(o instanceof ConsumerRecord<?, ?> r)) {
                return invocation.proceed(); // a batch of converted payloads: nothing to deduplicate by
            }
            IdempotencyKey k = keyOf(r);
            if (k != null && !seen.add(k)) {
                LOG.debug("later copy of {} in one batch left out", k);
                continue;
            }
            deliveries.add(r, k, fingerprint(r));
        }
        try {
            deliveries.run(execution, fresh -> {
                args[0] = polled == null ? fresh : polledOf(fresh, polled);
                DeliveryBatch.proceed(invocation);
            });
            return null;
        } catch (PayloadMismatchException e) {
            throw new UndeduplicableRecordException(
                    "batch record " + e.key() + " was already processed with a different value", e);
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

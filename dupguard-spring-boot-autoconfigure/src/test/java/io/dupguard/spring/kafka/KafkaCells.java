package io.dupguard.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.BatchClaim;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.spring.EffectRows;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * What the Kafka ITs' cells share: one IT's names (effect and idempotency tables, topics by a
 * random suffix), the records' producer, the effect rows in PostgreSQL, the deliveries that reached
 * the advice chain and the dead-letter topic's records with their reason, and a claim held by
 * another pool. One instance per IT class, a static {@code @RegisterExtension} field: it creates the
 * effect table before the class's tests and drops its tables after them.
 */
final class KafkaCells implements BeforeAllCallback, AfterAllCallback {
    final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    final String effects;
    final String idem;

    /** Deliveries that reached the advice chain (before the dedup), per message id. */
    private final Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();
    /** Listener calls that saw a value. */
    private final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    /** Dead-lettered records: value → the reason headers of each copy. */
    private final Map<String, List<String>> dead = new ConcurrentHashMap<>();

    private JdbcTemplate jdbc;

    KafkaCells(String name) {
        this.effects = "it_" + name + "_effects_" + suffix;
        this.idem = "it_" + name + "_idem_" + suffix;
    }

    /** A topic name of this IT. */
    String topic(String name) {
        return "it." + name + "." + suffix;
    }

    /** Creates {@code topics} and registers the shared properties ({@link KafkaItBroker#register}). */
    void register(DynamicPropertyRegistry r, String group, int pool, String... topics) {
        KafkaItBroker.topics(topics);
        KafkaItBroker.register(r, group + "-" + suffix, idem, pool);
    }

    /**
     * The Kafka dedup in store mode on the local Redis ({@code dupguard.redis.url}), its completions
     * not awaited ({@code dupguard.kafka.await-completion=false}), keys in {@code scope}.
     */
    static void redisStoreWithoutAwait(DynamicPropertyRegistry r, String scope) {
        r.add("dupguard.store", () -> "redis");
        r.add("spring.data.redis.url", () -> System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379"));
        r.add("dupguard.kafka.mode", () -> "store");
        r.add("dupguard.kafka.await-completion", () -> "false");
        r.add("dupguard.kafka.scope", () -> scope);
    }

    /** Creates the effect table in the IT's database. */
    @Override
    public void beforeAll(ExtensionContext context) {
        this.jdbc = SpringExtension.getApplicationContext(context).getBean(JdbcTemplate.class);
        EffectRows.create(jdbc, effects);
    }

    /** Drops the effect and idempotency tables. */
    @Override
    public void afterAll(ExtensionContext context) {
        EffectRows.drop(jdbc, effects, idem);
    }

    /** The listeners' effect: one row for {@code id}. */
    void effect(JdbcTemplate jdbc, String id) {
        jdbc.update("insert into " + effects + " (message_id) values (?)", id);
    }

    /** Sends {@code value} to partition 0 of {@code topic}, {@code id} in the message-id header (none if null). */
    static void send(KafkaTemplate<String, String> kafka, String topic, String id, String value) {
        sendTo(kafka, topic, 0, id, value);
    }

    /** Sends {@code value} to {@code partition} of {@code topic}, {@code id} in the message-id header (none if null). */
    static void sendTo(KafkaTemplate<String, String> kafka, String topic, int partition, String id, String value) {
        send(kafka, new ProducerRecord<>(topic, partition, null, value), id);
    }

    /** Sends {@code value} keyed by {@code id} (spread over the partitions), {@code id} in the message-id header too. */
    static void sendKeyed(KafkaTemplate<String, String> kafka, String topic, String id, String value) {
        send(kafka, new ProducerRecord<>(topic, id, value), id);
    }

    private static void send(KafkaTemplate<String, String> kafka, ProducerRecord<String, String> r, String id) {
        if (id != null) {
            r.headers().add(KafkaItBroker.MESSAGE_ID, id.getBytes(StandardCharsets.UTF_8));
        }
        kafka.send(r);
    }

    int effects(String id) {
        return EffectRows.of(jdbc, effects, id);
    }

    int effectsLike(String prefix) {
        return EffectRows.like(jdbc, effects, prefix);
    }

    /** Keys of {@code prefix} recorded by their claim alone ({@link EffectRows#recordedByTheirClaim}). */
    int recordedByTheirClaim(String prefix) {
        return EffectRows.recordedByTheirClaim(jdbc, idem, prefix);
    }

    /** Rows of {@code prefix} in the processed-messages table, none of them in the records table. */
    int processedLike(String prefix) {
        assertThat(jdbc.queryForObject(
                        "select count(*) from " + idem + " where idem_key like ?", Integer.class, prefix + "%"))
                .as("records of " + prefix)
                .isZero();
        return jdbc.queryForObject(
                "select count(*) from dupguard_processed where msg_id like ?", Integer.class, prefix + "%");
    }

    /** Records a listener call that saw {@code record}. */
    void saw(ConsumerRecord<?, ?> record) {
        seen.computeIfAbsent(String.valueOf(record.value()), v -> new AtomicInteger())
                .incrementAndGet();
    }

    int seen(String value) {
        AtomicInteger n = seen.get(value);
        return n == null ? 0 : n.get();
    }

    int delivered(String id) {
        AtomicInteger n = delivered.get(id);
        return n == null ? 0 : n.get();
    }

    /** An advice, put before the dedup, that counts each record (of a batch too) reaching the chain. */
    MethodInterceptor counting() {
        return invocation -> {
            Object[] args = invocation.getArguments();
            if (invocation.getMethod().getName().equals("onMessage") && args.length > 0) {
                List<?> records = args[0] instanceof List<?> l ? l : List.of(args[0]);
                for (Object o : records) {
                    if (o instanceof ConsumerRecord<?, ?> r && KafkaItBroker.messageId(r) != null) {
                        delivered
                                .computeIfAbsent(KafkaItBroker.messageId(r), k -> new AtomicInteger())
                                .incrementAndGet();
                    }
                }
            }
            return invocation.proceed();
        };
    }

    /** Records a dead-lettered record with its reason (the recoverer's exception headers). */
    void deadLettered(ConsumerRecord<?, ?> record) {
        StringBuilder reason = new StringBuilder();
        for (String h : List.of(
                KafkaHeaders.DLT_EXCEPTION_FQCN,
                KafkaHeaders.DLT_EXCEPTION_CAUSE_FQCN,
                KafkaHeaders.DLT_EXCEPTION_MESSAGE)) {
            Header header = record.headers().lastHeader(h);
            if (header != null) {
                reason.append(new String(header.value(), StandardCharsets.UTF_8))
                        .append(' ');
            }
        }
        dead.computeIfAbsent(String.valueOf(record.value()), v -> new java.util.concurrent.CopyOnWriteArrayList<>())
                .add(reason.toString());
    }

    int dead(String value) {
        List<String> copies = dead.get(value);
        return copies == null ? 0 : copies.size();
    }

    /** The reason of the one dead-lettered copy of {@code value}. */
    String reason(String value) {
        assertThat(dead(value)).as("dead letters of " + value).isEqualTo(1);
        return dead.get(value).get(0);
    }

    int deadLike(String prefix) {
        return dead.entrySet().stream()
                .filter(e -> e.getKey().startsWith(prefix))
                .mapToInt(e -> e.getValue().size())
                .sum();
    }

    /**
     * Every id {@code prefix + i} (i below {@code n}) has exactly one effect, none for those in
     * {@code none}; still so a moment later.
     */
    void eachOnce(String prefix, int n, Set<Integer> none) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> effectsLike(prefix) >= n - none.size());
        Awaitility.await()
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> effectsLike(prefix) == n - none.size());
        for (int i = 0; i < n; i++) {
            assertThat(effects(prefix + i)).as(prefix + i).isEqualTo(none.contains(i) ? 0 : 1);
        }
    }

    /**
     * A claim of {@code id} with {@code value} (scope kafka) held by another pool on the same idempotency table, as a
     * consumer of another process holds it while it runs; closing it releases the claim.
     */
    BatchClaim<Void> holdClaim(String id, String value) {
        DriverManagerDataSource ds = new DriverManagerDataSource(
                System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        Idempotency other = Idempotency.of(
                JdbcIdempotencyStore.builder(ds).tableName(idem).build(),
                IdempotencyConfig.custom().build());
        BatchClaim<Void> held = other.claimBatch(
                List.of(new BatchEntry(IdempotencyKey.of("kafka", id), Fingerprint.ofString(value))), Void.class);
        assertThat(held.claimed()).hasSize(1);
        return held;
    }

    /**
     * Another consumer in the processed layout processing {@code id} now: its transaction has
     * inserted the key's processed-messages row and is still open. Closing it rolls back, as that
     * consumer's failure would.
     */
    AutoCloseable holdProcessed(String id, String value) throws java.sql.SQLException {
        DriverManagerDataSource ds = new DriverManagerDataSource(
                System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        java.sql.Connection c = ds.getConnection();
        c.setAutoCommit(false);
        io.dupguard.jdbc.JdbcTransactionalIdempotency.of(io.dupguard.jdbc.JdbcProcessedMessages.create(ds))
                .execute(c, IdempotencyKey.of("kafka", id), Fingerprint.ofString(value), Void.class, x -> null);
        return () -> {
            try (c) {
                c.rollback();
            }
        };
    }

    /**
     * An advice before the dedup that counts each record's deliveries by its message id ({@code
     * keyless} runs for a record without one) and, for an id in {@code crashOnce} (removed then),
     * throws once the listener returned: the listener's work is done, the offset commit is lost, and
     * the error handler seeks back so the record comes again, as after a consumer that died.
     */
    static org.aopalliance.intercept.MethodInterceptor dyingBeforeItsOffsetCommit(
            Map<String, AtomicInteger> deliveries, Set<String> crashOnce, Runnable keyless) {
        return invocation -> {
            Object[] args = invocation.getArguments();
            if (!invocation.getMethod().getName().equals("onMessage")
                    || !(args[0] instanceof org.apache.kafka.clients.consumer.ConsumerRecord<?, ?> r)) {
                return invocation.proceed();
            }
            String id = KafkaItBroker.messageId(r);
            if (id == null) {
                keyless.run();
                return invocation.proceed();
            }
            deliveries.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            Object out = invocation.proceed();
            if (crashOnce.remove(id)) {
                throw new IllegalStateException("consumer died before its offset commit");
            }
            return out;
        };
    }

    /**
     * Spring Kafka's {@link org.springframework.kafka.listener.DefaultErrorHandler} with a {@link
     * org.springframework.kafka.listener.DeadLetterPublishingRecoverer} publishing to partition-less
     * {@code topic}, after {@code retries} retries {@code intervalMillis} apart.
     */
    static org.springframework.kafka.listener.DefaultErrorHandler deadLetters(
            KafkaTemplate<Object, Object> template, String topic, long intervalMillis, long retries) {
        return new org.springframework.kafka.listener.DefaultErrorHandler(
                new org.springframework.kafka.listener.DeadLetterPublishingRecoverer(
                        template, (r, e) -> new org.apache.kafka.common.TopicPartition(topic, -1)),
                new org.springframework.util.backoff.FixedBackOff(intervalMillis, retries));
    }

    /** {@link #factory} with batch acknowledgement (Boot's default) and two consumers of one group. */
    static ConcurrentKafkaListenerContainerFactory<Object, Object> twoConsumers(
            ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
            ConsumerFactory<Object, Object> consumers,
            boolean batch,
            CommonErrorHandler handler,
            org.aopalliance.aop.Advice... advice) {
        ConcurrentKafkaListenerContainerFactory<Object, Object> f =
                factory(configurer, consumers, batch, handler, ContainerProperties.AckMode.BATCH, advice);
        f.setConcurrency(2);
        return f;
    }

    /** A container factory as Boot configures it, with {@code handler} (null: the container's own, Spring Kafka's default) and {@code advice}. */
    static ConcurrentKafkaListenerContainerFactory<Object, Object> factory(
            ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
            ConsumerFactory<Object, Object> consumers,
            boolean batch,
            CommonErrorHandler handler,
            ContainerProperties.AckMode ackMode,
            org.aopalliance.aop.Advice... advice) {
        ConcurrentKafkaListenerContainerFactory<Object, Object> f = new ConcurrentKafkaListenerContainerFactory<>();
        configurer.configure(f, consumers);
        f.setCommonErrorHandler(handler);
        f.setBatchListener(batch);
        f.getContainerProperties().setAckMode(ackMode);
        f.getContainerProperties().setAdviceChain(advice);
        return f;
    }
}

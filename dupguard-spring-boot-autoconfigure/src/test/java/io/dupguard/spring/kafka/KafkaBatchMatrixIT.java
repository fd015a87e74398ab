package io.dupguard.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.spring.EffectRows;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The Kafka batch listener's failure matrix on the real (in-process KRaft) broker: a {@code
 * @Transactional} batch listener writing one PostgreSQL row per record, deduplicated by the starter's
 * interceptor (transactional mode, {@code key=header}), under Spring Kafka's default error handler
 * (the container's own {@code DefaultErrorHandler}) and under a {@code DefaultErrorHandler} with a
 * {@link DeadLetterPublishingRecoverer}. Every record ends with exactly one effect or in the
 * dead-letter topic; none is committed without either. One context, one container per error
 * handling; each test its own message ids.
 */
@SpringBootTest(classes = KafkaBatchMatrixIT.App.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@org.springframework.test.annotation.DirtiesContext
class KafkaBatchMatrixIT {
    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    static final String EFFECTS = "it_kmatrix_effects_" + SUFFIX;
    static final String IDEM = "it_kmatrix_idem_" + SUFFIX;
    static final String WITH_DLT = "it.mx.dlt." + SUFFIX;
    static final String DEFAULT = "it.mx.default." + SUFFIX;
    static final String NACK = "it.mx.nack." + SUFFIX;
    static final String DLT = "it.mx.dead." + SUFFIX;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        KafkaItBroker.topics(WITH_DLT, DEFAULT, NACK, DLT);
        KafkaItBroker.register(r, "mx-" + SUFFIX, IDEM, 6);
        r.add("it.mx.dlt", () -> WITH_DLT);
        r.add("it.mx.default", () -> DEFAULT);
        r.add("it.mx.nack", () -> NACK);
        r.add("it.mx.dead", () -> DLT);
    }

    /** Ids whose next delivery fails in the listener with BatchListenerFailedException (by index). */
    static final Set<String> FAIL_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids that always fail in the listener. */
    static final Set<String> FAIL_ALWAYS = ConcurrentHashMap.newKeySet();
    /** Ids whose next delivery fails the listener with a plain exception (no record named). */
    static final Set<String> THROW_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids the listener nacks once. */
    static final Set<String> NACK_ONCE = ConcurrentHashMap.newKeySet();
    /** Dead-lettered records by value. */
    static final Map<String, AtomicInteger> DEAD = new ConcurrentHashMap<>();
    /** Listener calls that saw a value (keyless records included). */
    static final Map<String, AtomicInteger> SEEN = new ConcurrentHashMap<>();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Listeners.class)
    static class App {
        /** A dead-letter recoverer: the starter marks the dedup's refusals not retryable on it. */
        @Bean
        DefaultErrorHandler deadLetters(KafkaTemplate<Object, Object> template) {
            return new DefaultErrorHandler(
                    new DeadLetterPublishingRecoverer(template, (r, e) -> new TopicPartition(DLT, -1)),
                    new FixedBackOff(0, 2));
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> dltBatch(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers,
                IdempotentKafkaInterceptor dedup,
                DefaultErrorHandler deadLetters) {
            return batchFactory(configurer, consumers, dedup, deadLetters, ContainerProperties.AckMode.BATCH);
        }

        /** Spring Kafka's default error handling: the container's own DefaultErrorHandler (log and skip). */
        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> defaultBatch(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers,
                IdempotentKafkaInterceptor dedup) {
            return batchFactory(configurer, consumers, dedup, null, ContainerProperties.AckMode.BATCH);
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> nackBatch(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers,
                IdempotentKafkaInterceptor dedup) {
            return batchFactory(configurer, consumers, dedup, null, ContainerProperties.AckMode.MANUAL);
        }

        private static ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers,
                IdempotentKafkaInterceptor dedup,
                DefaultErrorHandler handler,
                ContainerProperties.AckMode ackMode) {
            ConcurrentKafkaListenerContainerFactory<Object, Object> f = new ConcurrentKafkaListenerContainerFactory<>();
            configurer.configure(f, consumers);
            f.setCommonErrorHandler(handler);
            f.setBatchListener(true);
            f.getContainerProperties().setAckMode(ackMode);
            f.getContainerProperties().setAdviceChain(dedup);
            return f;
        }
    }

    static class Listeners {
        private final JdbcTemplate jdbc;

        Listeners(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        @KafkaListener(
                id = "mx-dlt",
                topics = "${it.mx.dlt}",
                containerFactory = "dltBatch",
                properties = ConsumerConfig.MAX_POLL_RECORDS_CONFIG + "=200")
        public void withDeadLetters(List<ConsumerRecord<String, String>> records) {
            handle(records, null);
        }

        @Transactional
        @KafkaListener(
                id = "mx-default",
                topics = "${it.mx.default}",
                containerFactory = "defaultBatch",
                properties = ConsumerConfig.MAX_POLL_RECORDS_CONFIG + "=200")
        public void withDefaults(List<ConsumerRecord<String, String>> records) {
            handle(records, null);
        }

        @Transactional
        @KafkaListener(
                id = "mx-nack",
                topics = "${it.mx.nack}",
                containerFactory = "nackBatch",
                properties = ConsumerConfig.MAX_POLL_RECORDS_CONFIG + "=200")
        public void withNack(List<ConsumerRecord<String, String>> records, Acknowledgment ack) {
            handle(records, ack);
        }

        @KafkaListener(id = "mx-dead", topics = "${it.mx.dead}")
        public void dead(ConsumerRecord<String, String> record) {
            DEAD.computeIfAbsent(record.value(), v -> new AtomicInteger()).incrementAndGet();
        }

        private void handle(List<ConsumerRecord<String, String>> records, Acknowledgment ack) {
            for (int i = 0; i < records.size(); i++) {
                ConsumerRecord<String, String> r = records.get(i);
                SEEN.computeIfAbsent(r.value(), v -> new AtomicInteger()).incrementAndGet();
                String id = KafkaItBroker.messageId(r);
                if (id != null && (FAIL_ONCE.remove(id) || FAIL_ALWAYS.contains(id))) {
                    throw new BatchListenerFailedException("listener failed at " + id, i);
                }
                if (id != null && THROW_ONCE.remove(id)) {
                    throw new IllegalStateException("listener failed at " + id + " without naming it");
                }
                if (ack != null && id != null && NACK_ONCE.remove(id)) {
                    ack.nack(i, Duration.ZERO);
                    return;
                }
                if (id != null) {
                    jdbc.update("insert into " + EFFECTS + " (message_id) values (?)", id);
                }
            }
            if (ack != null) {
                ack.acknowledge();
            }
        }
    }

    @Autowired
    KafkaTemplate<String, String> kafka;

    @Autowired
    JdbcTemplate jdbc;

    static JdbcTemplate cleanup;

    @BeforeAll
    static void table(@Autowired JdbcTemplate jdbc) {
        cleanup = jdbc;
        EffectRows.create(jdbc, EFFECTS);
    }

    @AfterAll
    static void drop() {
        EffectRows.drop(cleanup, EFFECTS, IDEM);
    }

    private void send(String topic, String id, String value) {
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, 0, null, value);
        if (id != null) {
            r.headers().add(KafkaItBroker.MESSAGE_ID, id.getBytes(StandardCharsets.UTF_8));
        }
        kafka.send(r);
    }

    private int effects(String id) {
        return EffectRows.of(jdbc, EFFECTS, id);
    }

    private static int dead(String value) {
        AtomicInteger n = DEAD.get(value);
        return n == null ? 0 : n.get();
    }

    private static int deadLike(String prefix) {
        return DEAD.entrySet().stream()
                .filter(e -> e.getKey().startsWith(prefix))
                .mapToInt(e -> e.getValue().get())
                .sum();
    }

    private static int seen(String value) {
        AtomicInteger n = SEEN.get(value);
        return n == null ? 0 : n.get();
    }

    /** Every id {@code prefix + i} (i in {@code good}) has exactly one effect, now and a moment later. */
    private void eachOnce(String prefix, int n, Set<Integer> bad) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> EffectRows.like(jdbc, EFFECTS, prefix) >= n - bad.size());
        Awaitility.await()
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> EffectRows.like(jdbc, EFFECTS, prefix) == n - bad.size());
        for (int i = 0; i < n; i++) {
            assertThat(effects(prefix + i)).as(prefix + i).isEqualTo(bad.contains(i) ? 0 : 1);
        }
    }

    @Test
    void keylessInvalidAndConflictingCopiesAreDeadLetteredAloneAndTheRestOfThePollTakesEffect() {
        String p = "dk-" + SUFFIX + "-";
        for (int i = 0; i < 60; i++) {
            String id = p + i;
            if (i == 10) {
                id = null; // no message-id header
            } else if (i == 20) {
                id = p + "x".repeat(300); // over the key length limit
            } else if (i == 30) {
                id = p + 25; // the same id as record 25, another value
            }
            send(WITH_DLT, id, "v-" + p + i);
        }
        kafka.flush();
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> deadLike("v-" + p) >= 3);
        eachOnce(p, 60, Set.of(10, 20, 30)); // id 30 is never sent: record 30 carries id 25
        assertThat(dead("v-" + p + 10)).isEqualTo(1);
        assertThat(dead("v-" + p + 20)).isEqualTo(1);
        assertThat(dead("v-" + p + 30)).isEqualTo(1);
        assertThat(deadLike("v-" + p)).isEqualTo(3);
    }

    @Test
    void aKeyReusedWithAnotherValueIsDeadLetteredAloneTheRestTakesEffect() {
        String p = "dm-" + SUFFIX + "-";
        send(WITH_DLT, p + 5, "first");
        kafka.flush();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> effects(p + 5) == 1);
        for (int i = 0; i < 20; i++) {
            send(WITH_DLT, p + i, "v-" + p + i);
        }
        kafka.flush();
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> dead("v-" + p + 5) == 1);
        eachOnce(p, 20, Set.of());
        assertThat(deadLike("v-" + p)).isEqualTo(1);
    }

    @Test
    void batchListenerFailedAtRecordKOnceKeepsThePrefixWithItsRecordsAndEveryRecordTakesEffectOnce() {
        String p = "db-" + SUFFIX + "-";
        FAIL_ONCE.add(p + 7);
        for (int i = 0; i < 20; i++) {
            send(WITH_DLT, p + i, "v-" + p + i);
        }
        kafka.flush();
        eachOnce(p, 20, Set.of());
        assertThat(FAIL_ONCE).doesNotContain(p + 7);
        assertThat(EffectRows.recordedByTheirClaim(jdbc, IDEM, p)).isEqualTo(20);
        assertThat(deadLike("v-" + p)).isZero();
    }

    @Test
    void aRecordTheListenerAlwaysFailsIsDeadLetteredAloneAfterItsRetries() {
        String p = "da-" + SUFFIX + "-";
        FAIL_ALWAYS.add(p + 4);
        // a duplicate before it: the listener's index counts only the records it got
        send(WITH_DLT, p + 1, "v-" + p + 1);
        for (int i = 0; i < 12; i++) {
            send(WITH_DLT, p + i, "v-" + p + i);
        }
        kafka.flush();
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> dead("v-" + p + 4) == 1);
        eachOnce(p, 12, Set.of(4));
        assertThat(deadLike("v-" + p)).isEqualTo(1);
    }

    @Test
    void underTheDefaultErrorHandlerAKeylessRecordIsSkippedAloneAndTheRestOfThePollTakesEffect() {
        String p = "fk-" + SUFFIX + "-";
        for (int i = 0; i < 30; i++) {
            send(DEFAULT, i == 10 ? null : p + i, "v-" + p + i);
        }
        kafka.flush();
        eachOnce(p, 30, Set.of(10));
        assertThat(seen("v-" + p + 10)).isZero(); // refused before the listener
    }

    @Test
    void underTheDefaultErrorHandlerBatchListenerFailedAtRecordKOnceLeavesEveryRecordWithOneEffect() {
        String p = "fb-" + SUFFIX + "-";
        FAIL_ONCE.add(p + 13);
        for (int i = 0; i < 30; i++) {
            send(DEFAULT, p + i, "v-" + p + i);
        }
        kafka.flush();
        eachOnce(p, 30, Set.of());
        assertThat(EffectRows.recordedByTheirClaim(jdbc, IDEM, p)).isEqualTo(30);
    }

    @Test
    void aNackAtRecordKRecordsThePrefixAndReleasesTheTailWhichTakesEffectOnRedelivery() {
        String p = "nk-" + SUFFIX + "-";
        NACK_ONCE.add(p + 6);
        send(NACK, p + 2, "v-" + p + 2); // a duplicate before it: the nack index counts the listener's records
        for (int i = 0; i < 20; i++) {
            send(NACK, p + i, "v-" + p + i);
        }
        kafka.flush();
        eachOnce(p, 20, Set.of());
        assertThat(NACK_ONCE).doesNotContain(p + 6);
        assertThat(seen("v-" + p + 6)).isGreaterThanOrEqualTo(2);
        assertThat(seen("v-" + p + 0)).isEqualTo(1);
    }

    @Test
    void aListenerFailureThatNamesNoRecordRollsThePollBackAndItsRetryTakesEffectOncePerRecord() {
        String p = "dt-" + SUFFIX + "-";
        THROW_ONCE.add(p + 9);
        for (int i = 0; i < 20; i++) {
            send(WITH_DLT, p + i, "v-" + p + i);
        }
        kafka.flush();
        eachOnce(p, 20, Set.of());
        assertThat(THROW_ONCE).doesNotContain(p + 9);
        assertThat(seen("v-" + p + 0)).isGreaterThanOrEqualTo(2); // ran, rolled back, ran again
        assertThat(deadLike("v-" + p)).isZero();
    }
}

package io.dupguard.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
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
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Kafka consumer dedup on a real (in-process KRaft) broker with the jdbc store on PostgreSQL in
 * transactional mode; effects are rows in PostgreSQL. Records carry a producer-set {@code message-id}
 * header ({@code dupguard.kafka.key=header}).
 */
@SpringBootTest(classes = KafkaDedupIT.App.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@org.springframework.test.annotation.DirtiesContext // closes its pool: the module's ITs share one PostgreSQL
class KafkaDedupIT {
    @RegisterExtension
    static final KafkaCells CELLS = new KafkaCells("kafka");

    static final String SUFFIX = CELLS.suffix;
    static final String RECORDS = CELLS.topic("records");
    static final String BATCHES = CELLS.topic("batches");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        CELLS.register(r, "it", 8, RECORDS, BATCHES);
        r.add("it.kafka.records", () -> RECORDS);
        r.add("it.kafka.batches", () -> BATCHES);
        r.add("dupguard.kafka.in-flight-wait", () -> "300ms");
    }

    /** Deliveries that reached the container's advice chain, per message id. */
    static final Map<String, AtomicInteger> DELIVERIES = new ConcurrentHashMap<>();
    /** Ids whose first delivery "dies" after the listener's commit, before the offset commit. */
    static final Set<String> CRASH_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids whose first delivery fails in the listener after its write. */
    static final Set<String> FAIL_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids that always fail in the listener after its write. */
    static final Set<String> FAIL_ALWAYS = ConcurrentHashMap.newKeySet();

    static final AtomicInteger KEYLESS = new AtomicInteger();
    static final AtomicInteger BATCH_CALLS = new AtomicInteger();

    static String id(ConsumerRecord<?, ?> r) {
        return KafkaItBroker.messageId(r);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Listeners.class)
    static class App {
        @Bean
        DefaultErrorHandler errorHandler() {
            return new DefaultErrorHandler(new FixedBackOff(50, 5));
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> dedupFactory(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers,
                IdempotentKafkaInterceptor dedup,
                DefaultErrorHandler errorHandler) {
            MethodInterceptor crashing =
                    KafkaCells.dyingBeforeItsOffsetCommit(DELIVERIES, CRASH_ONCE, KEYLESS::incrementAndGet);
            return KafkaCells.twoConsumers(configurer, consumers, false, errorHandler, crashing, dedup);
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers,
                IdempotentKafkaInterceptor dedup,
                DefaultErrorHandler errorHandler) {
            return KafkaCells.twoConsumers(configurer, consumers, true, errorHandler, dedup);
        }
    }

    static class Listeners {
        private final JdbcTemplate jdbc;

        Listeners(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @KafkaListener(id = "records", topics = RECORDS_TOPIC, containerFactory = "dedupFactory")
        public void onRecord(ConsumerRecord<String, String> record) {
            String id = id(record);
            CELLS.effect(jdbc, id);
            if (id != null && (FAIL_ONCE.remove(id) || FAIL_ALWAYS.contains(id))) {
                throw new IllegalStateException("listener failed after its write");
            }
        }

        @KafkaListener(
                id = "batches",
                topics = BATCHES_TOPIC,
                containerFactory = "batchFactory",
                properties = ConsumerConfig.MAX_POLL_RECORDS_CONFIG + "=200")
        public void onBatch(List<ConsumerRecord<String, String>> records) {
            write(records);
        }

        /** Joins the group of "batches" when a test starts it. */
        @KafkaListener(
                id = "batches-late",
                groupId = "batches",
                autoStartup = "false",
                topics = BATCHES_TOPIC,
                containerFactory = "batchFactory",
                properties = ConsumerConfig.MAX_POLL_RECORDS_CONFIG + "=200")
        public void onBatchLate(List<ConsumerRecord<String, String>> records) {
            write(records);
        }

        private void write(List<ConsumerRecord<String, String>> records) {
            BATCH_CALLS.incrementAndGet();
            jdbc.batchUpdate(
                    "insert into " + CELLS.effects + " (message_id) values (?)",
                    records.stream().map(r -> new Object[] {id(r)}).toList());
        }
    }

    // constant expressions for the annotations
    static final String RECORDS_TOPIC = "${it.kafka.records}";
    static final String BATCHES_TOPIC = "${it.kafka.batches}";

    @Autowired
    KafkaTemplate<String, String> kafka;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    KafkaListenerEndpointRegistry registry;

    private void send(String topic, String id, String value) {
        KafkaCells.sendKeyed(kafka, topic, id, value);
    }

    private int effects(String id) {
        return CELLS.effects(id);
    }

    private int effectsLike(String prefix) {
        return CELLS.effectsLike(prefix);
    }

    private int distinctLike(String prefix) {
        return io.dupguard.spring.EffectRows.distinctLike(jdbc, CELLS.effects, prefix);
    }

    private int deliveries(String id) {
        AtomicInteger n = DELIVERIES.get(id);
        return n == null ? 0 : n.get();
    }

    @Test
    void aProducerThatResendsPutsRealDuplicatesOnTheTopicAndEachTakesEffectOnce() {
        String prefix = "resend-" + SUFFIX + "-";
        for (int copy = 0; copy < 3; copy++) {
            for (int i = 0; i < 20; i++) {
                send(RECORDS, prefix + i, "credit " + i);
            }
        }
        kafka.flush();
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            int n = 0;
            for (int i = 0; i < 20; i++) {
                n += Math.min(deliveries(prefix + i), 3);
            }
            return n == 60;
        });
        assertThat(effectsLike(prefix)).isEqualTo(20);
        assertThat(distinctLike(prefix)).isEqualTo(20);
        assertThat(CELLS.recordedByTheirClaim(prefix)).isEqualTo(20);
        // the default layout: one processed-messages row per message, nothing in the records table
        assertThat(CELLS.processedLike(prefix)).isEqualTo(20);
    }

    @Test
    void aConsumerThatDiesAfterItsCommitBeforeItsOffsetCommitIsRedeliveredAndNotRunAgain() {
        String id = "crash-" + UUID.randomUUID();
        CRASH_ONCE.add(id);
        send(RECORDS, id, "credit 5");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> deliveries(id) >= 2);
        assertThat(CRASH_ONCE).doesNotContain(id);
        assertThat(effects(id)).isEqualTo(1);
    }

    @Test
    void aListenerThatFailsAfterItsWriteLeavesNothingAndItsRetryTakesEffectOnce() {
        String id = "fail-" + UUID.randomUUID();
        FAIL_ONCE.add(id);
        send(RECORDS, id, "credit 7");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> deliveries(id) >= 2 && effects(id) == 1);
        assertThat(FAIL_ONCE).doesNotContain(id);
        Awaitility.await()
                .during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(2))
                .until(() -> effects(id) == 1);
    }

    @Test
    void aRecordWithoutTheKeyHeaderIsRefusedNotRetriedAndDoesNotStopThePartition() {
        int before = KEYLESS.get();
        send(RECORDS, null, "no key");
        String after = "after-keyless-" + UUID.randomUUID();
        send(RECORDS, after, "credit 1");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> KEYLESS.get() > before && effects(after) == 1);
        // not retryable: delivered once, then the error handler's recoverer (here: a log line) acts
        Awaitility.await()
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(3))
                .until(() -> KEYLESS.get() == before + 1);
    }

    @Test
    void tenThousandRecordsWithThirtyPercentDuplicatesAndARebalanceTakeEffectOncePerKey() {
        String prefix = "batch-" + SUFFIX + "-";
        int unique = 7_000;
        java.util.Random random = new java.util.Random(42);
        int sent = 0;
        for (int i = 0; i < unique; i++) {
            send(BATCHES, prefix + i, "v" + i);
            sent++;
            if (random.nextInt(7) < 3 && sent < 10_000) { // 3,000 re-sends of earlier ids, same value
                int j = random.nextInt(i + 1);
                send(BATCHES, prefix + j, "v" + j);
                sent++;
            }
        }
        while (sent < 10_000) {
            int j = random.nextInt(unique);
            send(BATCHES, prefix + j, "v" + j);
            sent++;
        }
        kafka.flush();
        long started = System.nanoTime();
        // a third consumer joins the group mid-stream: the partitions are rebalanced under load
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> effectsLike(prefix) > 500);
        registry.getListenerContainer("batches-late").start();
        Awaitility.await()
                .atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> distinctLike(prefix) == unique);
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertThat(effectsLike(prefix)).isEqualTo(unique);
        assertThat(CELLS.recordedByTheirClaim(prefix)).isEqualTo(unique);
        System.out.println("10,000 records (" + (10_000 - unique) + " duplicates) in " + BATCH_CALLS.get()
                + " listener calls, " + millis + " ms after the last send, a rebalance on the way");
    }

    @Test
    void anInvalidKeyAndAKeyReusedWithAnotherValueAreRefusedOnceNotRetriedAndDoNotStopThePartition() {
        String invalid = "invalid-" + "x".repeat(300);
        String reused = "reused-" + UUID.randomUUID();
        send(RECORDS, reused, "credit 1");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> effects(reused) == 1);
        send(RECORDS, invalid, "credit 2");
        send(RECORDS, reused, "credit 3"); // the same id, another value
        String after = "after-refused-" + UUID.randomUUID();
        send(RECORDS, after, "credit 4");
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> effects(after) == 1 && deliveries(invalid) >= 1 && deliveries(reused) >= 2);
        // not retryable: each delivered once, then the error handler's recoverer (here: a log line) acts
        Awaitility.await()
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(3))
                .until(() -> deliveries(invalid) == 1 && deliveries(reused) == 2);
        assertThat(effects(invalid)).isZero();
        assertThat(effects(reused)).isEqualTo(1);
    }

    @Test
    void aRecordTheListenerAlwaysFailsIsRetriedAsTheHandlerSaysThenSkippedWithoutItsEffect() {
        String id = "always-" + UUID.randomUUID();
        FAIL_ALWAYS.add(id);
        send(RECORDS, id, "credit 8");
        // FixedBackOff(50, 5): the delivery and 5 retries, each write rolled back with its key
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> deliveries(id) >= 6);
        String after = "after-always-" + UUID.randomUUID();
        send(RECORDS, after, "credit 9");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> effects(after) == 1);
        assertThat(deliveries(id)).isEqualTo(6);
        assertThat(effects(id)).isZero();
    }

    @Test
    void aRecordInFlightElsewhereWaitsForItAndTakesEffectOnceWhenReleased() throws Exception {
        String id = "inflight-" + UUID.randomUUID();
        // the processed layout: the other consumer's open transaction holds the key's row
        try (AutoCloseable held = CELLS.holdProcessed(id, "credit 6")) {
            send(RECORDS, id, "credit 6");
            // the listener's claim waits on that row's lock: delivered, not run
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> deliveries(id) >= 1);
            Awaitility.await()
                    .during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> effects(id) == 0);
        } // rolled back: the other consumer failed
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> effects(id) == 1);
        Awaitility.await()
                .during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(2))
                .until(() -> effects(id) == 1);
    }
}

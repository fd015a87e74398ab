package io.dupguard.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
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
import org.apache.kafka.clients.producer.ProducerRecord;
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
    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    static final String EFFECTS = "it_kafka_effects_" + SUFFIX;
    static final String IDEM = "it_kafka_idem_" + SUFFIX;
    static final String RECORDS = "it.records." + SUFFIX;
    static final String BATCHES = "it.batches." + SUFFIX;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        KafkaItBroker.topics(RECORDS, BATCHES);
        KafkaItBroker.register(r, "it-" + SUFFIX, IDEM, 8);
        r.add("it.kafka.records", () -> RECORDS);
        r.add("it.kafka.batches", () -> BATCHES);
    }

    /** Deliveries that reached the container's advice chain, per message id. */
    static final Map<String, AtomicInteger> DELIVERIES = new ConcurrentHashMap<>();
    /** Ids whose first delivery "dies" after the listener's commit, before the offset commit. */
    static final Set<String> CRASH_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids whose first delivery fails in the listener after its write. */
    static final Set<String> FAIL_ONCE = ConcurrentHashMap.newKeySet();

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
            return new DefaultErrorHandler(new FixedBackOff(50, 20));
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> dedupFactory(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers,
                IdempotentKafkaInterceptor dedup) {
            ConcurrentKafkaListenerContainerFactory<Object, Object> f = new ConcurrentKafkaListenerContainerFactory<>();
            configurer.configure(f, consumers);
            f.setConcurrency(2); // two consumers of one group
            MethodInterceptor crashing = invocation -> {
                Object[] args = invocation.getArguments();
                if (!invocation.getMethod().getName().equals("onMessage")
                        || !(args[0] instanceof ConsumerRecord<?, ?> r)) {
                    return invocation.proceed();
                }
                String id = id(r);
                if (id == null) {
                    KEYLESS.incrementAndGet();
                    return invocation.proceed();
                }
                DELIVERIES.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                Object out = invocation.proceed();
                if (CRASH_ONCE.remove(id)) {
                    // The listener's work and its record committed; the offset commit is lost: the
                    // error handler seeks back and the record comes again, as after a consumer that died.
                    throw new IllegalStateException("consumer died before its offset commit");
                }
                return out;
            };
            f.getContainerProperties().setAdviceChain(crashing, dedup);
            return f;
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers,
                IdempotentKafkaInterceptor dedup) {
            ConcurrentKafkaListenerContainerFactory<Object, Object> f = new ConcurrentKafkaListenerContainerFactory<>();
            configurer.configure(f, consumers);
            f.setConcurrency(2);
            f.setBatchListener(true);
            f.getContainerProperties().setAdviceChain(dedup);
            return f;
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
            jdbc.update("insert into " + EFFECTS + " (message_id) values (?)", id);
            if (id != null && FAIL_ONCE.remove(id)) {
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
                    "insert into " + EFFECTS + " (message_id) values (?)",
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

    static JdbcTemplate cleanup;

    @BeforeAll
    static void table(@Autowired JdbcTemplate jdbc) {
        cleanup = jdbc;
        io.dupguard.spring.EffectRows.create(jdbc, EFFECTS);
    }

    @AfterAll
    static void drop() {
        io.dupguard.spring.EffectRows.drop(cleanup, EFFECTS, IDEM);
    }

    private void send(String topic, String id, String value) {
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, id, value);
        if (id != null) {
            r.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
        }
        kafka.send(r);
    }

    private int effects(String id) {
        return io.dupguard.spring.EffectRows.of(jdbc, EFFECTS, id);
    }

    private int effectsLike(String prefix) {
        return io.dupguard.spring.EffectRows.like(jdbc, EFFECTS, prefix);
    }

    private int distinctLike(String prefix) {
        return io.dupguard.spring.EffectRows.distinctLike(jdbc, EFFECTS, prefix);
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
        assertThat(io.dupguard.spring.EffectRows.recordedByTheirClaim(jdbc, IDEM, prefix))
                .isEqualTo(20);
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
        assertThat(io.dupguard.spring.EffectRows.recordedByTheirClaim(jdbc, IDEM, prefix))
                .isEqualTo(unique);
        System.out.println("10,000 records (" + (10_000 - unique) + " duplicates) in " + BATCH_CALLS.get()
                + " listener calls, " + millis + " ms after the last send, a rebalance on the way");
    }
}

package io.dupguard.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.redis.RedisIdempotencyStore;
import io.dupguard.spring.ClaimTakeover;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code dupguard.kafka.await-completion=false} in store mode on Redis, on the real (in-process
 * KRaft) broker, for a batch listener and for a record listener under a {@link DefaultErrorHandler}
 * with a {@link DeadLetterPublishingRecoverer} (2 retries, 20 ms apart). A batch listener on two
 * consumers, sent copies of each id on other partitions and in later polls, runs each id once
 * (effect rows in PostgreSQL) and leaves every key completed in Redis. On one record consumer,
 * records that always fail are dead-lettered once each with the listener's reason and their keys
 * released (no record left in Redis, as the starter promises for a listener that throws); the record
 * before each of them completes, whose completion is answered by the failing record's claim, and the
 * record after each runs once and completes. A completion refused after its listener returned fails
 * the thread's next record once, before its listener runs; the error handler, which starts its
 * back-off afresh when the exception changes, still gives that record all its retries, and its dead
 * letter carries its own listener's reason.
 */
@SpringBootTest(
        classes = KafkaRedisAwaitCompletionBatchIT.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.NONE)
@org.springframework.test.annotation.DirtiesContext // closes its pool: the module's ITs share one PostgreSQL
class KafkaRedisAwaitCompletionBatchIT {
    @RegisterExtension
    static final KafkaCells CELLS = new KafkaCells("kafka_redis_batch");

    static final String SCOPE = "it-kafka-redis-batch-" + CELLS.suffix;
    static final String THIEF = "it-thief-" + CELLS.suffix;
    static final String BATCHES = CELLS.topic("await.batches");
    static final String FAILING = CELLS.topic("await.failing");
    static final String DEAD = CELLS.topic("await.dead");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        CELLS.register(r, "await-batch", 4, BATCHES, FAILING, DEAD);
        r.add("it.await.batches", () -> BATCHES);
        r.add("it.await.failing", () -> FAILING);
        r.add("it.await.dead", () -> DEAD);
        KafkaCells.redisStoreWithoutAwait(r, SCOPE);
        // a copy in flight on the other consumer is waited for, then replayed
        r.add("dupguard.kafka.in-flight-wait", () -> "2s");
    }

    /** Ids the record listener always fails for (before its effect). */
    static final Set<String> FAIL_ALWAYS = ConcurrentHashMap.newKeySet();
    /** Ids whose claim another caller takes over while the record listener runs. */
    static final Set<String> TAKEN_OVER = ConcurrentHashMap.newKeySet();
    /** Threads the record listener ran on, per message id. */
    static final Map<String, Set<String>> THREADS = new ConcurrentHashMap<>();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Listeners.class)
    static class App {
        /** Two retries, then the dead-letter topic. */
        @Bean
        DefaultErrorHandler deadLetters(KafkaTemplate<Object, Object> template) {
            return KafkaCells.deadLetters(template, DEAD, 20, 2);
        }

        /** Batches on two consumers, the container's own error handler. */
        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers,
                IdempotentKafkaInterceptor dedup) {
            return KafkaCells.twoConsumers(configurer, consumers, true, null, CELLS.counting(), dedup);
        }

        /** Records on one consumer, dead-lettered after their retries. */
        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> failingFactory(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers,
                IdempotentKafkaInterceptor dedup,
                DefaultErrorHandler deadLetters) {
            return KafkaCells.factory(
                    configurer, consumers, false, deadLetters, AckMode.BATCH, CELLS.counting(), dedup);
        }
    }

    static class Listeners {
        private final JdbcTemplate jdbc;
        private final IdempotencyStore store;

        Listeners(JdbcTemplate jdbc, IdempotencyStore store) {
            this.jdbc = jdbc;
            this.store = store;
        }

        @KafkaListener(
                id = "await-batch",
                topics = "${it.await.batches}",
                containerFactory = "batchFactory",
                batch = "true",
                properties = ConsumerConfig.MAX_POLL_RECORDS_CONFIG + "=7")
        public void batch(List<ConsumerRecord<String, String>> records) {
            for (ConsumerRecord<String, String> r : records) {
                CELLS.saw(r);
                CELLS.effect(jdbc, KafkaItBroker.messageId(r));
            }
        }

        @KafkaListener(id = "await-failing", topics = "${it.await.failing}", containerFactory = "failingFactory")
        public void record(ConsumerRecord<String, String> r) {
            CELLS.saw(r);
            String id = KafkaItBroker.messageId(r);
            THREADS.computeIfAbsent(id, k -> ConcurrentHashMap.newKeySet())
                    .add(Thread.currentThread().getName());
            if (FAIL_ALWAYS.contains(id)) {
                throw new IllegalStateException("the downstream always fails for " + id);
            }
            if (TAKEN_OVER.remove(id)) {
                ClaimTakeover.takeOver(store, IdempotencyKey.of(SCOPE, id), THIEF);
            }
            CELLS.effect(jdbc, id);
        }

        @KafkaListener(id = "await-dead", topics = "${it.await.dead}")
        public void dead(ConsumerRecord<String, String> record) {
            CELLS.deadLettered(record);
        }
    }

    @Autowired
    KafkaTemplate<String, String> kafka;

    @Autowired
    IdempotencyStore store;

    private RecordStatus status(String id) {
        return store.find(IdempotencyKey.of(SCOPE, id))
                .map(IdempotencyRecord::status)
                .orElse(null);
    }

    private void awaitCompleted(String prefix, int n, Set<Integer> except) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            for (int i = 0; i < n; i++) {
                if (!except.contains(i)) {
                    assertThat(status(prefix + i)).as(prefix + i).isEqualTo(RecordStatus.COMPLETED);
                }
            }
        });
    }

    @Test
    void aBatchListenerOnTwoConsumersRunsCopiesAcrossPollsOnceAndEveryKeyEndsCompleted() {
        assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
        String p = "b-" + CELLS.suffix + "-";
        int n = 40;
        for (int copy = 0; copy < 3; copy++) {
            // each copy on another partition: the two consumers (two partitions each) both get most ids
            for (int i = 0; i < n; i++) {
                KafkaCells.sendTo(kafka, BATCHES, (i + copy) % 4, p + i, "v-" + p + i);
            }
            kafka.flush();
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            int copies = 0;
            for (int i = 0; i < n; i++) {
                copies += Math.min(CELLS.delivered(p + i), 3);
            }
            return copies == 3 * n;
        });
        CELLS.eachOnce(p, n, Set.of());
        awaitCompleted(p, n, Set.of());
        for (int i = 0; i < n; i++) {
            assertThat(CELLS.seen("v-" + p + i))
                    .as("listener calls with " + p + i)
                    .isEqualTo(1);
        }
    }

    @Test
    void recordsThatAlwaysFailAreDeadLetteredOnceWithTheirKeysReleasedAndTheNextRecordsRunOnce() {
        String p = "f-" + CELLS.suffix + "-";
        Set<Integer> failing = Set.of(1, 4, 7);
        failing.forEach(i -> FAIL_ALWAYS.add(p + i));
        // record 3's completion is refused (its claim taken over while it runs): record 4's first
        // attempt fails with it before its listener runs
        TAKEN_OVER.add(p + 3);
        for (int i = 0; i < 9; i++) {
            KafkaCells.send(kafka, FAILING, p + i, "v-" + p + i); // partition 0: one consumer, in order
        }
        kafka.flush();
        CELLS.eachOnce(p, 9, failing);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> CELLS.deadLike("v-" + p) >= 3);
        Awaitility.await()
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> CELLS.deadLike("v-" + p) == 3);
        for (int i : failing) {
            assertThat(CELLS.reason("v-" + p + i))
                    .as("dead letter of " + p + i)
                    .contains("IllegalStateException")
                    .contains("always fails for " + p + i)
                    .doesNotContain("LeaseLost");
            assertThat(status(p + i)).as("key of " + p + i).isNull();
        }
        // the delivery and 2 retries each ran the listener
        for (int i : failing) {
            assertThat(CELLS.seen("v-" + p + i))
                    .as("listener calls with " + p + i)
                    .isEqualTo(3);
        }
        // record 4 had one delivery more, failed by record 3's refusal before its listener ran (the
        // handler starts its back-off afresh when the exception changes)
        assertThat(CELLS.delivered(p + 1)).isEqualTo(3);
        assertThat(CELLS.delivered(p + 4)).isEqualTo(4);
        assertThat(CELLS.delivered(p + 7)).isEqualTo(3);
        for (int i = 0; i < 9; i++) {
            if (!failing.contains(i)) {
                assertThat(CELLS.seen("v-" + p + i))
                        .as("listener calls with " + p + i)
                        .isEqualTo(1);
            }
        }
        awaitCompleted(p, 9, Set.of(1, 3, 4, 7));
        assertThat(ClaimTakeover.owner(store, IdempotencyKey.of(SCOPE, p + 3))).isEqualTo(THIEF);
        store.release(IdempotencyKey.of(SCOPE, p + 3), THIEF);
        Set<String> threads = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 9; i++) {
            threads.addAll(THREADS.get(p + i));
        }
        assertThat(threads).as("the record listener's threads").hasSize(1);
    }
}

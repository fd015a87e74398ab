package io.dupguard.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.redis.RedisIdempotencyStore;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.backoff.FixedBackOff;

/**
 * {@code dupguard.kafka.await-completion=false} in store mode on Redis, on a real (in-process KRaft)
 * broker, Spring Kafka's {@link DefaultErrorHandler}, two consumers: a record's completion travels
 * ahead of the next record's claim. Every message takes effect once (effect rows in PostgreSQL), its
 * record ends completed in Redis, and a consumer that dies after the listener, before its offset
 * commit, does not run the redelivered record again.
 */
@SpringBootTest(classes = KafkaRedisAwaitCompletionIT.App.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@org.springframework.test.annotation.DirtiesContext // closes its pool: the module's ITs share one PostgreSQL
class KafkaRedisAwaitCompletionIT {
    @RegisterExtension
    static final KafkaCells CELLS = new KafkaCells("kafka_redis");

    static final String SCOPE = "it-kafka-redis-" + CELLS.suffix;
    static final String RECORDS = CELLS.topic("records");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        CELLS.register(r, "it", 4, RECORDS);
        r.add("it.kafka.records", () -> RECORDS);
        KafkaCells.redisStoreWithoutAwait(r, SCOPE);
        r.add("dupguard.kafka.in-flight-wait", () -> "300ms");
    }

    /** Deliveries that reached the container's advice chain, per message id. */
    static final Map<String, AtomicInteger> DELIVERIES = new ConcurrentHashMap<>();
    /** Ids whose first delivery "dies" after the listener returned, before the offset commit. */
    static final Set<String> CRASH_ONCE = ConcurrentHashMap.newKeySet();

    // constant expression for the annotation
    static final String RECORDS_TOPIC = "${it.kafka.records}";

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
            return KafkaCells.twoConsumers(
                    configurer,
                    consumers,
                    false,
                    errorHandler,
                    KafkaCells.dyingBeforeItsOffsetCommit(DELIVERIES, CRASH_ONCE, () -> {}),
                    dedup);
        }
    }

    static class Listeners {
        private final JdbcTemplate jdbc;

        Listeners(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @KafkaListener(id = "redis-records", topics = RECORDS_TOPIC, containerFactory = "dedupFactory")
        public void onRecord(ConsumerRecord<String, String> record) {
            CELLS.effect(jdbc, KafkaItBroker.messageId(record));
        }
    }

    @Autowired
    KafkaTemplate<String, String> kafka;

    @Autowired
    IdempotencyStore store;

    private int deliveries(String id) {
        AtomicInteger n = DELIVERIES.get(id);
        return n == null ? 0 : n.get();
    }

    private RecordStatus status(String id) {
        return store.find(IdempotencyKey.of(SCOPE, id))
                .map(io.dupguard.idempotency.IdempotencyRecord::status)
                .orElse(null);
    }

    @Test
    void everyMessageTakesEffectOnceAndEndsCompletedInRedis() {
        assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
        String prefix = "resend-" + CELLS.suffix + "-";
        for (int copy = 0; copy < 3; copy++) {
            for (int i = 0; i < 30; i++) {
                KafkaCells.sendKeyed(kafka, RECORDS, prefix + i, "credit " + i);
            }
        }
        kafka.flush();
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            int n = 0;
            for (int i = 0; i < 30; i++) {
                n += Math.min(deliveries(prefix + i), 3);
            }
            return n == 90;
        });
        assertThat(CELLS.effectsLike(prefix)).isEqualTo(30);
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (int i = 0; i < 30; i++) {
                assertThat(status(prefix + i)).as(prefix + i).isEqualTo(RecordStatus.COMPLETED);
            }
        });
    }

    @Test
    void aConsumerThatDiesBeforeItsOffsetCommitIsRedeliveredAndNotRunAgain() {
        String id = "crash-" + UUID.randomUUID();
        CRASH_ONCE.add(id);
        KafkaCells.sendKeyed(kafka, RECORDS, id, "credit 5");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> deliveries(id) >= 2);
        assertThat(CRASH_ONCE).doesNotContain(id);
        assertThat(CELLS.effects(id)).isEqualTo(1);
    }
}

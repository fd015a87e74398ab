package io.dupguard.spring.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.BatchClaim;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.amqp.autoconfigure.SimpleRabbitListenerContainerFactoryConfigurer;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Consumer dedup for a batch listener ({@code List<Message>} per call, consumer batching) against
 * the real RabbitMQ broker, with the jdbc store and the effects in PostgreSQL.
 */
// Closed after the class, so its pool does not hold PostgreSQL connections while later ITs run.
@DirtiesContext
@SpringBootTest(classes = RabbitBatchDedupIT.App.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
class RabbitBatchDedupIT {
    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    static final String EFFECTS = "it_amqp_batch_effects_" + SUFFIX;
    static final String IDEM = "it_amqp_batch_idem_" + SUFFIX;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        RabbitItServers.register(r, IDEM);
        r.add("spring.datasource.hikari.maximum-pool-size", () -> "4");
        // short, so a test can hold a claim past it: the message is then requeued, not lost
        r.add("dupguard.amqp.in-flight-wait", () -> "300ms");
        // the records layout, whose in-flight claims other consumers wait for and requeue around;
        // the processed layout (the default) is covered by KafkaDedupIT and the example's ledger
        r.add("dupguard.amqp.layout", () -> "records");
    }

    /** Messages the listener was called with (after dedup), per message id. */
    static final ConcurrentHashMap<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    /** Consumers the containers had to restart (an exception that ended a consumer's loop). */
    static final AtomicInteger CONSUMER_RESTARTS = new AtomicInteger();
    /** Ids whose first batch fails in the listener (before any effect). */
    static final Set<String> FAIL_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids whose first batch "crashes" after the dedup committed it, before the ack. */
    static final Set<String> CRASH_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids the listener always fails for. */
    static final Set<String> ALWAYS_FAIL = ConcurrentHashMap.newKeySet();
    /** Ids that reached the advice chain as a redelivery. */
    static final Set<String> REDELIVERED = ConcurrentHashMap.newKeySet();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Listener.class)
    static class App {
        @Bean
        org.springframework.context.ApplicationListener<
                        org.springframework.amqp.rabbit.listener.ListenerContainerConsumerFailedEvent>
                consumerRestarts() {
            return e -> CONSUMER_RESTARTS.incrementAndGet();
        }

        @Bean
        Queue batchQueue() {
            return new Queue("it.dupguard.batch." + SUFFIX, false, false, true);
        }

        /** Dead letters of {@link #dlxQueue}. */
        @Bean
        Queue deadQueue() {
            return new Queue("it.dupguard.batch.dead." + SUFFIX, false, false, true);
        }

        /** A queue whose rejected messages go to {@link #deadQueue}. */
        @Bean
        Queue dlxQueue() {
            return RabbitDeadLetters.queueDeadLetteringTo(
                    "it.dupguard.batch.dlx." + SUFFIX, "it.dupguard.batch.dead." + SUFFIX);
        }

        /** One consumer, batches of 8: a message's place in its batch follows the publishing order. */
        @Bean
        SimpleRabbitListenerContainerFactory dlxFactory(
                SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory,
                IdempotentMessageInterceptor dedup) {
            return batchesOf8(configurer, connectionFactory, dedup, 1, 500L);
        }

        @Bean
        Queue retryQueue() {
            return RabbitDeadLetters.queueDeadLetteringTo(
                    "it.dupguard.batch.retry." + SUFFIX, "it.dupguard.batch.dead." + SUFFIX);
        }

        @Bean
        SimpleRabbitListenerContainerFactory retryFactory(
                SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory,
                IdempotentMessageInterceptor dedup) {
            SimpleRabbitListenerContainerFactory f = batchesOf8(configurer, connectionFactory, dedup, 1, 500L);
            f.setAdviceChain(RabbitDeadLetters.boundedRetryThen(dedup));
            return f;
        }

        @Bean
        SimpleRabbitListenerContainerFactory batchFactory(
                SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory,
                IdempotentMessageInterceptor dedup) {
            return batchesOf8(configurer, connectionFactory, dedup, 2, 100L);
        }

        private static SimpleRabbitListenerContainerFactory batchesOf8(
                SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory,
                IdempotentMessageInterceptor dedup,
                int consumers,
                long receiveTimeout) {
            SimpleRabbitListenerContainerFactory f = new SimpleRabbitListenerContainerFactory();
            configurer.configure(f, connectionFactory);
            f.setConcurrentConsumers(consumers);
            f.setBatchListener(true);
            f.setConsumerBatchEnabled(true);
            f.setBatchSize(8);
            f.setPrefetchCount(8);
            f.setReceiveTimeout(receiveTimeout);
            MethodInterceptor crashAfterCommit = invocation -> {
                List<String> ids = new java.util.ArrayList<>();
                for (Object m : (List<?>) invocation.getArguments()[1]) {
                    MessageProperties props = ((Message) m).getMessageProperties();
                    ids.add(props.getMessageId());
                    if (Boolean.TRUE.equals(props.isRedelivered())) {
                        REDELIVERED.add(props.getMessageId());
                    }
                }
                Object out = invocation.proceed();
                if (ids.stream().anyMatch(id -> id != null && CRASH_ONCE.remove(id))) {
                    // The batch's effects and records are committed; the ack is lost: the broker
                    // redelivers the batch, as after a consumer that died before acknowledging it.
                    throw new AmqpException("consumer died after its commit, before its ack");
                }
                return out;
            };
            f.setAdviceChain(crashAfterCommit, dedup);
            return f;
        }
    }

    static class Listener {
        private final JdbcTemplate jdbc;

        Listener(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @RabbitListener(queues = "#{retryQueue.name}", containerFactory = "retryFactory")
        public void onRetriedBatch(List<Message> batch) {
            for (Message m : batch) {
                String id = m.getMessageProperties().getMessageId();
                CALLS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                jdbc.update("insert into " + EFFECTS + " (message_id) values (?)", id);
                if (ALWAYS_FAIL.contains(id)) {
                    throw new IllegalStateException("the downstream always fails for " + id);
                }
            }
        }

        @RabbitListener(queues = "#{dlxQueue.name}", containerFactory = "dlxFactory")
        public void onDlxBatch(List<Message> batch) {
            onBatch(batch);
        }

        @RabbitListener(queues = "#{batchQueue.name}", containerFactory = "batchFactory")
        public void onBatch(List<Message> batch) {
            for (Message m : batch) {
                String id = m.getMessageProperties().getMessageId();
                CALLS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                if (FAIL_ONCE.remove(id)) {
                    throw new IllegalStateException("the downstream failed for " + id);
                }
            }
            for (Message m : batch) {
                jdbc.update(
                        "insert into " + EFFECTS + " (message_id) values (?)",
                        m.getMessageProperties().getMessageId());
            }
        }
    }

    @Autowired
    RabbitTemplate rabbit;

    @Autowired
    Queue batchQueue;

    @Autowired
    RabbitAdmin admin;

    @Autowired
    JdbcTemplate jdbc;

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

    @Autowired
    Queue dlxQueue;

    @Autowired
    Queue deadQueue;

    private void publish(String id, String body) {
        publish(batchQueue.getName(), id, body);
    }

    private void publish(String queue, String id, String body) {
        rabbit.convertAndSend("", queue, body, m -> {
            m.getMessageProperties().setMessageId(id);
            return m;
        });
    }

    private int count(Queue q) {
        return (int) admin.getQueueInfo(q.getName()).getMessageCount();
    }

    private int effectsOf(String id) {
        return io.dupguard.spring.EffectRows.of(jdbc, EFFECTS, id);
    }

    @Test
    void aKeylessOrMismatchedMessageIsDeadLetteredAloneAndTheRestOfItsBatchTakesEffect() {
        String p = "x-" + UUID.randomUUID() + "-";
        publish(dlxQueue.getName(), p + 5, "first body");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> effectsOf(p + 5) == 1);
        int deadBefore = count(deadQueue);
        // 2 batches of 8: a mismatch in the middle of the first, a keyless message last in the second
        for (int i = 0; i < 16; i++) {
            publish(dlxQueue.getName(), i == 15 ? null : p + i, "credit " + i);
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> count(deadQueue) >= deadBefore + 2);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count(dlxQueue) == 0);
        for (int i = 0; i < 15; i++) {
            assertThat(effectsOf(p + i)).as(p + i).isEqualTo(1);
        }
        Awaitility.await()
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> count(deadQueue) == deadBefore + 2 && effects(p) == 15);
    }

    private java.util.Map<String, String> deadLetters(String prefix, int expected) {
        return RabbitDeadLetters.take(rabbit, deadQueue.getName(), prefix, expected);
    }

    @Test
    void theSameKeyTwiceInOneBatchWithAnotherValueDeadLettersTheLaterCopyAloneAndTheRestTakesEffect() {
        String p = "v-" + UUID.randomUUID() + "-";
        // one batch of 8: id 3 once as a credit, then again (5th) as a debit
        for (int i = 0; i < 8; i++) {
            publish(dlxQueue.getName(), p + (i == 4 ? 3 : i), i == 4 ? "debit 3" : "credit " + i);
        }
        assertThat(deadLetters(p, 1)).isEqualTo(java.util.Map.of(p + 3, "rejected"));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count(dlxQueue) == 0);
        for (int i = 0; i < 8; i++) {
            if (i != 4) {
                assertThat(effectsOf(p + i)).as(p + i).isEqualTo(1);
            }
        }
        assertThat(effects(p)).isEqualTo(7);
    }

    @Test
    void anInvalidKeyIsDeadLetteredAloneAndTheRestOfItsBatchTakesEffect() {
        String p = "k-" + UUID.randomUUID() + "-";
        // The AMQP message-id is a short string (at most 255 bytes, the client refuses longer), so
        // the invalid key a message-id can carry is one the key rules refuse: a control character.
        String invalid = p + "2\u0007";
        for (int i = 0; i < 8; i++) {
            publish(dlxQueue.getName(), i == 2 ? invalid : p + i, "credit " + i);
        }
        assertThat(deadLetters(p, 1)).isEqualTo(java.util.Map.of(invalid, "rejected"));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count(dlxQueue) == 0);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> effects(p) == 7);
        for (int i = 0; i < 8; i++) {
            assertThat(effectsOf(p + i)).as(p + i).isEqualTo(i == 2 ? 0 : 1);
        }
    }

    private int effects(String prefix) {
        return io.dupguard.spring.EffectRows.like(jdbc, EFFECTS, prefix);
    }

    private int distinctEffects(String prefix) {
        return io.dupguard.spring.EffectRows.distinctLike(jdbc, EFFECTS, prefix);
    }

    private void awaitDrained() {
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> admin.getQueueInfo(batchQueue.getName()).getMessageCount() == 0);
    }

    @Test
    void batchesOfCopiesTakeEffectOncePerMessageId() {
        String prefix = "b-" + UUID.randomUUID() + "-";
        int ids = 20;
        for (int copy = 0; copy < 3; copy++) {
            for (int i = 0; i < ids; i++) {
                publish(prefix + i, "credit " + i);
                if (i % 5 == 0) {
                    publish(prefix + i, "credit " + i); // a copy within the same batch too
                }
            }
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> distinctEffects(prefix) == ids);
        awaitDrained();
        assertThat(effects(prefix)).isEqualTo(ids);
        assertThat(io.dupguard.spring.EffectRows.recordedByTheirClaim(jdbc, IDEM, prefix))
                .isEqualTo(ids);
    }

    /** Publishes {@code prefix}0..n-1 after adding {@code prefix}0 to {@code marked}. */
    private void publishFirstMarked(String prefix, int n, Set<String> marked) {
        marked.add(prefix + 0);
        for (int i = 0; i < n; i++) {
            publish(prefix + i, "credit " + i);
        }
    }

    @Test
    void aFailedBatchReleasesEveryKeySoTheRedeliveryRunsThemOnce() {
        String prefix = "f-" + UUID.randomUUID() + "-";
        publishFirstMarked(prefix, 4, FAIL_ONCE);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> distinctEffects(prefix) == 4);
        awaitDrained();
        assertThat(FAIL_ONCE).doesNotContain(prefix + 0);
        assertThat(CALLS.get(prefix + 0).get()).isEqualTo(2); // failed once, then ran
        assertThat(effects(prefix)).isEqualTo(4);
    }

    @Test
    void aBatchWhoseAckIsLostAfterItsCommitIsRedeliveredAndNotRunAgain() {
        String prefix = "c-" + UUID.randomUUID() + "-";
        publishFirstMarked(prefix, 8, CRASH_ONCE);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> REDELIVERED.contains(prefix + 0));
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> distinctEffects(prefix) == 8);
        awaitDrained();
        assertThat(CRASH_ONCE).doesNotContain(prefix + 0);
        for (int i = 0; i < 8; i++) {
            assertThat(CALLS.get(prefix + i).get()).as(prefix + i).isEqualTo(1); // the redelivery skipped it
        }
        assertThat(effects(prefix)).isEqualTo(8);
    }

    @Autowired
    io.dupguard.spring.autoconfigure.DupguardProperties properties;

    @Test
    void aMessageInFlightElsewherePastTheWaitIsRequeuedWhileTheRestOfItsBatchSettlesAndRunsOnceReleased() {
        String p = "w-" + UUID.randomUUID() + "-";
        int deadBefore = count(deadQueue);
        // Another consumer's claim on p3, from its own pool, the key and body the listener's dedup sees.
        Idempotency elsewhere = Idempotency.of(
                JdbcIdempotencyStore.builder(new DriverManagerDataSource(System.getProperty(
                                "dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres")))
                        .tableName(IDEM)
                        .build(),
                IdempotencyConfig.custom().build());
        int restartsBefore = CONSUMER_RESTARTS.get();
        BatchClaim<Void> held = elsewhere.claimBatch(
                List.of(new BatchEntry(
                        IdempotencyKey.of(properties.getAmqp().getScope(), p + 3),
                        Fingerprint.of("credit 3".getBytes(StandardCharsets.UTF_8)))),
                Void.class);
        assertThat(held.claimed()).hasSize(1);
        for (int i = 0; i < 8; i++) {
            publish(dlxQueue.getName(), p + i, "credit " + i);
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> effects(p) == 7);
        // held past the 300 ms in-flight wait, several times over: requeued each time, never run
        Awaitility.await()
                .during(Duration.ofMillis(1200))
                .atMost(Duration.ofSeconds(5))
                .until(() -> effectsOf(p + 3) == 0 && count(deadQueue) == deadBefore);
        held.close(); // the other consumer fails: its claim is released
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> effectsOf(p + 3) == 1);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count(dlxQueue) == 0);
        for (int i = 0; i < 8; i++) {
            assertThat(effectsOf(p + i)).as(p + i).isEqualTo(1);
        }
        assertThat(count(deadQueue)).isEqualTo(deadBefore);
        assertThat(CONSUMER_RESTARTS.get()).as("consumers restarted").isEqualTo(restartsBefore);
    }

    @Autowired
    Queue retryQueue;

    @Test
    void aBatchWithAMessageThatAlwaysFailsIsDeadLetteredWholeAfterItsRetriesNotAcknowledged() {
        String p = "r-" + UUID.randomUUID() + "-";
        ALWAYS_FAIL.add(p + 3);
        RabbitDeadLetters.publishNumbered(rabbit, retryQueue.getName(), p, 8);
        // The listener cannot name the failing message: after 3 attempts the batch is rejected whole.
        java.util.Map<String, String> dead = RabbitDeadLetters.take(rabbit, deadQueue.getName(), p, 8);
        for (int i = 0; i < 8; i++) {
            assertThat(dead).as(p + i).containsEntry(p + i, "rejected");
            assertThat(CALLS.getOrDefault(p + i, new AtomicInteger()).get())
                    .as(p + i)
                    .isEqualTo(i <= 3 ? 3 : 0);
        }
        assertThat(effects(p)).isZero();
    }
}

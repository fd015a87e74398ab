package io.dupguard.spring.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
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
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Consumer dedup against the real RabbitMQ broker (127.0.0.1:5672) with the jdbc store on
 * PostgreSQL; effects are rows in PostgreSQL.
 */
@SpringBootTest(classes = RabbitDedupIT.App.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
class RabbitDedupIT {
    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    static final String EFFECTS = "it_amqp_effects_" + SUFFIX;
    static final String IDEM = "it_amqp_idem_" + SUFFIX;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        RabbitItServers.register(r, IDEM);
        // short, so a test can hold a claim past it: the message is then requeued, not lost
        r.add("dupguard.amqp.in-flight-wait", () -> "300ms");
        // the records layout, whose in-flight claims other consumers wait for and requeue around;
        // the processed layout (the default) is covered by KafkaDedupIT and the example's ledger
        r.add("dupguard.amqp.layout", () -> "records");
    }

    /** Consumers the containers had to restart (an exception that ended a consumer's loop). */
    static final AtomicInteger CONSUMER_RESTARTS = new AtomicInteger();

    /** Deliveries that reached the container's advice chain, per message id. */
    static final Map<String, AtomicInteger> DELIVERIES = new ConcurrentHashMap<>();
    /** Ids whose first delivery "crashes" after the listener finished, before the ack. */
    static final Set<String> CRASH_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids whose first delivery fails in the listener after its write. */
    static final Set<String> FAIL_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids the listener always fails for (after its write). */
    static final Set<String> ALWAYS_FAIL = ConcurrentHashMap.newKeySet();
    /** Listener calls per id on the queue with bounded retry. */
    static final Map<String, AtomicInteger> RETRY_CALLS = new ConcurrentHashMap<>();
    /** Deliveries of messages without a message-id. */
    static final AtomicInteger KEYLESS = new AtomicInteger();

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
        Queue dedupQueue() {
            // Named, not AnonymousQueue: its x-queue-leader-locator argument is refused by RabbitMQ < 3.10.
            return new Queue("it.dupguard.dedup." + SUFFIX, false, false, true);
        }

        /** Dead letters of {@link #dlxQueue}. */
        @Bean
        Queue deadQueue() {
            return new Queue("it.dupguard.dedup.dead." + SUFFIX, false, false, true);
        }

        /** A queue whose rejected messages go to {@link #deadQueue}, consumed by the same listener. */
        @Bean
        Queue dlxQueue() {
            return RabbitDeadLetters.queueDeadLetteringTo(
                    "it.dupguard.dedup.dlx." + SUFFIX, "it.dupguard.dedup.dead." + SUFFIX);
        }

        /** Dead-letters to {@link #deadQueue}; its listener retries 3 times, then the starter's recoverer. */
        @Bean
        Queue retryQueue() {
            return RabbitDeadLetters.queueDeadLetteringTo(
                    "it.dupguard.dedup.retry." + SUFFIX, "it.dupguard.dedup.dead." + SUFFIX);
        }

        private static SimpleRabbitListenerContainerFactory configured(
                SimpleRabbitListenerContainerFactoryConfigurer configurer, ConnectionFactory connectionFactory) {
            SimpleRabbitListenerContainerFactory f = new SimpleRabbitListenerContainerFactory();
            configurer.configure(f, connectionFactory);
            return f;
        }

        @Bean
        SimpleRabbitListenerContainerFactory retryFactory(
                SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory,
                IdempotentMessageInterceptor dedup) {
            SimpleRabbitListenerContainerFactory f = configured(configurer, connectionFactory);
            f.setAdviceChain(RabbitDeadLetters.boundedRetryThen(dedup));
            return f;
        }

        @Bean
        SimpleRabbitListenerContainerFactory dedupFactory(
                SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory,
                IdempotentMessageInterceptor dedup) {
            SimpleRabbitListenerContainerFactory f = configured(configurer, connectionFactory);
            f.setConcurrentConsumers(2); // two consumers on one queue
            f.setPrefetchCount(1);
            MethodInterceptor counting = invocation -> {
                Message m = (Message) invocation.getArguments()[1];
                String id = m.getMessageProperties().getMessageId();
                if (id == null) {
                    KEYLESS.incrementAndGet();
                    return invocation.proceed();
                }
                DELIVERIES.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                Object out = invocation.proceed();
                if (CRASH_ONCE.remove(id)) {
                    // The listener's work and its record are done; the ack is lost: the broker
                    // redelivers, as after a consumer that died before acknowledging.
                    throw new AmqpException("consumer died before its ack");
                }
                return out;
            };
            f.setAdviceChain(counting, dedup);
            return f;
        }
    }

    static class Listener {
        private final JdbcTemplate jdbc;

        Listener(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @RabbitListener(queues = "#{retryQueue.name}", containerFactory = "retryFactory")
        public void onRetriedMessage(Message message) {
            String id = message.getMessageProperties().getMessageId();
            RETRY_CALLS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            jdbc.update("insert into " + EFFECTS + " (message_id) values (?)", id);
            if (ALWAYS_FAIL.contains(id)) {
                throw new IllegalStateException("the downstream always fails for " + id);
            }
        }

        @RabbitListener(queues = "#{dlxQueue.name}", containerFactory = "dedupFactory")
        public void onDlxMessage(Message message) {
            onMessage(message);
        }

        @RabbitListener(queues = "#{dedupQueue.name}", containerFactory = "dedupFactory")
        public void onMessage(Message message) {
            String id = message.getMessageProperties().getMessageId();
            jdbc.update("insert into " + EFFECTS + " (message_id) values (?)", id);
            if (FAIL_ONCE.remove(id)) {
                // The write above is in the listener's transaction with the dedup row: both roll back.
                throw new IllegalStateException("listener failed after its write");
            }
            // Slow work, so that duplicates reach the other consumer while this one runs.
            jdbc.queryForObject("select pg_sleep(0.02)::text", String.class);
        }
    }

    @Autowired
    RabbitTemplate rabbit;

    @Autowired
    Queue dedupQueue;

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
        publish(dedupQueue.getName(), id, body);
    }

    private void publish(String queue, String id, String body) {
        rabbit.convertAndSend("", queue, body, m -> {
            m.getMessageProperties().setMessageId(id);
            return m;
        });
    }

    private int effects(String id) {
        return io.dupguard.spring.EffectRows.of(jdbc, EFFECTS, id);
    }

    private int deliveries(String id) {
        AtomicInteger n = DELIVERIES.get(id);
        return n == null ? 0 : n.get();
    }

    private void awaitDrained() {
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> admin.getQueueInfo(dedupQueue.getName()).getMessageCount() == 0);
    }

    @Test
    void theSameMessagePublishedFiveTimesTakesEffectOnce() {
        String id = "m-" + UUID.randomUUID();
        for (int i = 0; i < 5; i++) {
            publish(id, "credit 10");
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> deliveries(id) >= 5);
        awaitDrained();
        assertThat(effects(id)).isEqualTo(1);
        assertThat(io.dupguard.spring.EffectRows.recordedByTheirClaim(jdbc, IDEM, id))
                .isEqualTo(1);
    }

    @Test
    void aConsumerThatDiesBeforeItsAckIsRedeliveredAndNotRunAgain() {
        String id = "crash-" + UUID.randomUUID();
        CRASH_ONCE.add(id);
        publish(id, "credit 5");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> deliveries(id) >= 2);
        awaitDrained();
        assertThat(CRASH_ONCE).doesNotContain(id);
        assertThat(effects(id)).isEqualTo(1);
    }

    @Test
    void aListenerThatFailsAfterItsWriteLeavesNothingAndItsRedeliveryTakesEffectOnce() {
        String id = "fail-" + UUID.randomUUID();
        FAIL_ONCE.add(id);
        publish(id, "credit 7");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> deliveries(id) >= 2);
        awaitDrained();
        assertThat(FAIL_ONCE).doesNotContain(id);
        // transactional mode: the failed delivery's write rolled back with its claim
        assertThat(effects(id)).isEqualTo(1);
    }

    @Test
    void aKeyReusedWithAnotherBodyIsDeadLetteredAndTheFirstEffectStays() {
        String id = "reused-" + UUID.randomUUID();
        publish(dlxQueue.getName(), id, "credit 5");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> effects(id) == 1);
        publish(dlxQueue.getName(), id, "debit 5");
        assertThat(RabbitDeadLetters.take(rabbit, deadQueue.getName(), id, 1)).isEqualTo(Map.of(id, "rejected"));
        assertThat(effects(id)).isEqualTo(1);
        assertThat(deliveries(id)).isEqualTo(2);
    }

    @Autowired
    io.dupguard.spring.autoconfigure.DupguardProperties properties;

    @Test
    void aMessageInFlightElsewherePastTheWaitIsRequeuedWithoutRestartingTheConsumerAndRunsOnceReleased() {
        String id = "held-" + UUID.randomUUID();
        int restartsBefore = CONSUMER_RESTARTS.get();
        // another consumer's claim, from its own pool: the key and body this listener's dedup sees
        io.dupguard.idempotency.BatchClaim<Void> held = io.dupguard.idempotency.Idempotency.of(
                        io.dupguard.jdbc.JdbcIdempotencyStore.builder(
                                        new org.springframework.jdbc.datasource.DriverManagerDataSource(
                                                System.getProperty(
                                                        "dupguard.pg.url",
                                                        "jdbc:postgresql://127.0.0.1:5432/test?user=postgres")))
                                .tableName(IDEM)
                                .build())
                .claimBatch(
                        java.util.List.of(new io.dupguard.idempotency.BatchEntry(
                                io.dupguard.idempotency.IdempotencyKey.of(
                                        properties.getAmqp().getScope(), id),
                                io.dupguard.idempotency.Fingerprint.of(
                                        "credit 5".getBytes(java.nio.charset.StandardCharsets.UTF_8)))),
                        Void.class);
        assertThat(held.claimed()).hasSize(1);
        publish(dlxQueue.getName(), id, "credit 5");
        // delivered, waited for 300 ms, requeued; again and again while the claim is held
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> deliveries(id) >= 3);
        assertThat(effects(id)).isZero();
        held.close(); // the other consumer fails: its claim is released
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> effects(id) == 1);
        assertThat(CONSUMER_RESTARTS.get()).as("consumers restarted").isEqualTo(restartsBefore);
        assertThat(admin.getQueueInfo(deadQueue.getName()).getMessageCount()).isZero();
    }

    @Autowired
    Queue retryQueue;

    @Test
    void aMessageThatAlwaysFailsIsDeadLetteredAloneAfterItsRetriesAndTheOthersTakeEffectOnce() {
        String p = "retry-" + UUID.randomUUID() + "-";
        ALWAYS_FAIL.add(p + 1);
        RabbitDeadLetters.publishNumbered(rabbit, retryQueue.getName(), p, 4);
        assertThat(RabbitDeadLetters.take(rabbit, deadQueue.getName(), p, 1)).isEqualTo(Map.of(p + 1, "rejected"));
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> io.dupguard.spring.EffectRows.like(jdbc, EFFECTS, p) == 3);
        assertThat(RETRY_CALLS.get(p + 1).get()).isEqualTo(3); // 3 attempts, each through the dedup
        for (int i = 0; i < 4; i++) {
            assertThat(effects(p + i)).as(p + i).isEqualTo(i == 1 ? 0 : 1);
        }
    }

    @Test
    void aMessageWithAnInvalidKeyIsDeadLetteredWithoutRunning() {
        // A control character: the AMQP message-id cannot exceed 255 bytes, so no longer key arrives.
        String id = "invalid-" + UUID.randomUUID() + "\u0007";
        publish(dlxQueue.getName(), id, "credit 5");
        assertThat(RabbitDeadLetters.take(rabbit, deadQueue.getName(), id, 1)).isEqualTo(Map.of(id, "rejected"));
        assertThat(effects(id)).isZero();
        assertThat(deliveries(id)).isEqualTo(1);
    }

    @Test
    void aMessageWithoutAKeyIsRejectedOnceNotRequeuedInALoop() {
        int before = KEYLESS.get();
        rabbit.convertAndSend("", dedupQueue.getName(), "no key");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> KEYLESS.get() > before);
        awaitDrained();
        // Rejected without requeue (no DLX on this queue: dropped); a requeue would loop at once.
        Awaitility.await()
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(2))
                .until(() -> KEYLESS.get() == before + 1);
    }

    @Test
    void twoConcurrentConsumersOnOneQueueRunEachMessageOnce() {
        String prefix = "c-" + UUID.randomUUID() + "-";
        int ids = 30;
        for (int copy = 0; copy < 3; copy++) {
            for (int i = 0; i < ids; i++) {
                publish(prefix + i, "credit " + i);
            }
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            int total = 0;
            for (int i = 0; i < ids; i++) {
                total += Math.min(deliveries(prefix + i), 3);
            }
            return total == ids * 3;
        });
        awaitDrained();
        for (int i = 0; i < ids; i++) {
            assertThat(effects(prefix + i)).as("effects of %s", prefix + i).isEqualTo(1);
        }
        int total = io.dupguard.spring.EffectRows.like(jdbc, EFFECTS, prefix);
        assertThat(total).isEqualTo(ids);
    }
}

package io.dupguard.spring.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.redis.RedisIdempotencyStore;
import io.dupguard.spring.ClaimTakeover;
import io.dupguard.spring.EffectRows;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code dupguard.amqp.await-completion=false} in store mode on Redis, on the real RabbitMQ broker,
 * through Spring AMQP's simple listener container and its own error handling: a listener exception
 * requeues the message ({@code defaultRequeueRejected}), and with Boot's listener retry ({@code
 * spring.rabbitmq.listener.simple.retry.*}, the starter's dedup-aware recoverer, which rejects as
 * {@code RejectAndDontRequeueRecoverer} does) it is retried, then dead-lettered. A message's
 * completion is answered with its consumer thread's next claim: the setting reaches the AMQP
 * listener: a completion refused after the listener returned fails the thread's next delivery
 * before its listener runs, not its own, and that delivery is requeued as a listener failure (the
 * consumer goes on: no restart, so its auto-delete queue and the message stay) and then takes
 * effect once. Re-sent
 * copies over three consumers take effect once each (effect rows in PostgreSQL) and end completed
 * in Redis; a delivery whose listener fails is redelivered and takes effect once; a consumer that
 * dies after the listener returned, before its ack, does not run the redelivered message again; a
 * message that always fails is dead-lettered once with its key released, and the consumer's next
 * message runs once and ends completed.
 */
@DirtiesContext // closes its pool: the module's ITs share one PostgreSQL
@SpringBootTest(classes = RabbitRedisAwaitCompletionIT.App.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
class RabbitRedisAwaitCompletionIT {
    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    static final String EFFECTS = "it_amqp_redis_effects_" + SUFFIX;
    static final String SCOPE = "it-amqp-redis-" + SUFFIX;
    static final String THIEF = "it-thief-" + SUFFIX;
    static final ConsumerProbe PROBE = new ConsumerProbe("it.dupguard.await.probe." + SUFFIX);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        RabbitItServers.register(r, "it_amqp_redis_idem_" + SUFFIX); // unused: the store is Redis
        r.add("dupguard.store", () -> "redis");
        r.add("spring.data.redis.url", () -> System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379"));
        r.add("dupguard.amqp.mode", () -> "store");
        r.add("dupguard.amqp.await-completion", () -> "false");
        r.add("dupguard.amqp.scope", () -> SCOPE);
        r.add("dupguard.amqp.in-flight-wait", () -> "300ms");
        // Boot's listener retry, as a service sets it: the retry factory keeps it, the others replace
        // their advice chain and get the container's default (requeue on a listener exception)
        r.add("spring.rabbitmq.listener.simple.retry.enabled", () -> "true");
        r.add("spring.rabbitmq.listener.simple.retry.max-retries", () -> "2");
        r.add("spring.rabbitmq.listener.simple.retry.initial-interval", () -> "20ms");
    }

    /** Deliveries that reached the advice chain, per message id. */
    static final Map<String, AtomicInteger> DELIVERIES = new ConcurrentHashMap<>();
    /** What the dedup returned or threw for each delivery, per message id: "ok" or the exception chain. */
    static final Map<String, List<String>> OUTCOMES = new ConcurrentHashMap<>();
    /** Listener calls per message id. */
    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    /** Ids whose first delivery "dies" after the listener returned, before the ack. */
    static final Set<String> CRASH_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids whose listener fails (before its effect) as many times as the count says. */
    static final Map<String, AtomicInteger> FAILURES = new ConcurrentHashMap<>();
    /** Ids the listener always fails for (before its effect). */
    static final Set<String> ALWAYS_FAIL = ConcurrentHashMap.newKeySet();
    /** Ids whose claim another caller takes over while the listener runs. */
    static final Set<String> TAKEN_OVER = ConcurrentHashMap.newKeySet();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Listener.class)
    static class App {
        @Bean
        Queue mainQueue() {
            return new Queue("it.dupguard.await." + SUFFIX, false, false, true);
        }

        /**
         * Auto-delete, with one consumer: were that consumer restarted (a failure of the dedup thrown
         * bare from the advice chain), RabbitMQ would delete the queue, with the requeued message.
         */
        @Bean
        Queue probeQueue() {
            return PROBE.queue();
        }

        @Bean
        ConsumerProbe consumerProbe() {
            return PROBE;
        }

        @Bean
        Queue deadQueue() {
            return new Queue("it.dupguard.await.dead." + SUFFIX, false, false, true);
        }

        @Bean
        Queue retryQueue() {
            return RabbitDeadLetters.queueDeadLetteringTo(
                    "it.dupguard.await.retry." + SUFFIX, "it.dupguard.await.dead." + SUFFIX);
        }

        /** Three consumers, no retry: a listener exception requeues the message. */
        @Bean
        SimpleRabbitListenerContainerFactory requeueFactory(
                SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory,
                IdempotentMessageInterceptor dedup) {
            return withoutRetry(configurer, connectionFactory, dedup, 3);
        }

        /** One consumer, so that one thread takes every delivery of its queue; no retry. */
        @Bean
        SimpleRabbitListenerContainerFactory singleFactory(
                SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory,
                IdempotentMessageInterceptor dedup) {
            return withoutRetry(configurer, connectionFactory, dedup, 1);
        }

        /** One consumer with Boot's retry (3 attempts, the starter's recoverer), then the dedup. */
        @Bean
        SimpleRabbitListenerContainerFactory retryFactory(
                SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory,
                IdempotentMessageInterceptor dedup) {
            SimpleRabbitListenerContainerFactory f = new SimpleRabbitListenerContainerFactory();
            configurer.configure(f, connectionFactory);
            assertThat(f.getAdviceChain()).as("Boot's retry interceptor").hasSize(1);
            f.setAdviceChain(DedupAwareRetry.withDedup(f.getAdviceChain(), dedup));
            return f;
        }

        private static SimpleRabbitListenerContainerFactory withoutRetry(
                SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory,
                IdempotentMessageInterceptor dedup,
                int consumers) {
            SimpleRabbitListenerContainerFactory f = new SimpleRabbitListenerContainerFactory();
            configurer.configure(f, connectionFactory);
            f.setConcurrentConsumers(consumers);
            f.setPrefetchCount(1);
            f.setAdviceChain(recordingAndDyingBeforeTheAck(), dedup); // replaces Boot's retry
            return f;
        }

        /**
         * Counts each delivery, records what the dedup did with it and, for an id in {@link
         * #CRASH_ONCE}, throws once the dedup returned: the listener's work is done and its
         * completion sent, the ack is lost, and the broker redelivers, as after a consumer that died.
         */
        private static MethodInterceptor recordingAndDyingBeforeTheAck() {
            return invocation -> {
                String id = ((Message) invocation.getArguments()[1])
                        .getMessageProperties()
                        .getMessageId();
                DELIVERIES.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                Object out;
                try {
                    out = invocation.proceed();
                } catch (Throwable t) {
                    StringBuilder chain = new StringBuilder();
                    for (Throwable c = t; c != null; c = c.getCause()) {
                        chain.append(c.getClass().getSimpleName()).append(' ');
                    }
                    OUTCOMES.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>())
                            .add(chain.toString().trim());
                    throw t;
                }
                OUTCOMES.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add("ok");
                if (CRASH_ONCE.remove(id)) {
                    throw new AmqpException("consumer died before its ack");
                }
                return out;
            };
        }
    }

    static class Listener {
        private final JdbcTemplate jdbc;
        private final IdempotencyStore store;

        Listener(JdbcTemplate jdbc, IdempotencyStore store) {
            this.jdbc = jdbc;
            this.store = store;
        }

        @RabbitListener(queues = "#{mainQueue.name}", containerFactory = "requeueFactory")
        public void onMessage(Message message) {
            handle(message);
        }

        @RabbitListener(queues = "#{probeQueue.name}", containerFactory = "singleFactory")
        public void onProbe(Message message) {
            handle(message);
        }

        @RabbitListener(queues = "#{retryQueue.name}", containerFactory = "retryFactory")
        public void onRetried(Message message) {
            handle(message);
        }

        private void handle(Message message) {
            String id = message.getMessageProperties().getMessageId();
            CALLS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            AtomicInteger failures = FAILURES.get(id);
            if (ALWAYS_FAIL.contains(id) || (failures != null && failures.getAndDecrement() > 0)) {
                throw new IllegalStateException("the downstream failed for " + id);
            }
            if (TAKEN_OVER.remove(id)) {
                ClaimTakeover.takeOver(store, IdempotencyKey.of(SCOPE, id), THIEF);
            }
            jdbc.update("insert into " + EFFECTS + " (message_id) values (?)", id);
        }
    }

    @Autowired
    RabbitTemplate rabbit;

    @Autowired
    RabbitAdmin admin;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    IdempotencyStore store;

    @Autowired
    Queue mainQueue;

    @Autowired
    Queue probeQueue;

    @Autowired
    Queue retryQueue;

    @Autowired
    Queue deadQueue;

    static JdbcTemplate cleanup;
    static RabbitAdmin cleanupAdmin;

    @BeforeAll
    static void table(@Autowired JdbcTemplate jdbc, @Autowired RabbitAdmin admin) {
        cleanup = jdbc;
        cleanupAdmin = admin;
        EffectRows.create(jdbc, EFFECTS);
    }

    @AfterAll
    static void drop() {
        EffectRows.drop(cleanup, EFFECTS);
        cleanupAdmin.deleteQueue(PROBE.name);
    }

    private void publish(Queue queue, String id, String body) {
        rabbit.convertAndSend("", queue.getName(), body, m -> {
            m.getMessageProperties().setMessageId(id);
            return m;
        });
    }

    private static int count(Map<String, AtomicInteger> counts, String id) {
        AtomicInteger n = counts.get(id);
        return n == null ? 0 : n.get();
    }

    private static List<String> outcomes(String id) {
        return OUTCOMES.getOrDefault(id, List.of());
    }

    private int effects(String id) {
        return EffectRows.of(jdbc, EFFECTS, id);
    }

    private RecordStatus status(String id) {
        return store.find(IdempotencyKey.of(SCOPE, id))
                .map(IdempotencyRecord::status)
                .orElse(null);
    }

    private void awaitCompleted(String... ids) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            for (String id : ids) {
                assertThat(status(id)).as(id).isEqualTo(RecordStatus.COMPLETED);
            }
        });
    }

    private void awaitDrained(Queue queue) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> admin.getQueueInfo(queue.getName()).getMessageCount() == 0);
    }

    @Test
    void aRefusedCompletionFailsTheThreadsNextDeliveryBeforeItsListenerRunsAndNotItsOwn() {
        assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
        String taken = "taken-" + UUID.randomUUID();
        String next = "next-" + UUID.randomUUID();
        TAKEN_OVER.add(taken);
        publish(probeQueue, taken, "credit 1");
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> !outcomes(taken)
                .isEmpty());
        // awaited, the refusal would fail this delivery itself (LeaseLostException)
        assertThat(outcomes(taken)).containsExactly("ok");
        // the same consumer thread (one consumer) takes the answer with its next claim
        publish(probeQueue, next, "credit 2");
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> effects(next) == 1);
        assertThat(outcomes(next)).hasSize(2);
        assertThat(outcomes(next).get(0)).contains("LeaseLostException");
        assertThat(PROBE.failures()).as("probe consumers restarted").isZero();
        assertThat(outcomes(next).get(1)).isEqualTo("ok");
        assertThat(count(CALLS, next)).as("listener calls of " + next).isEqualTo(1);
        awaitCompleted(next);
        assertThat(effects(taken)).isEqualTo(1);
        assertThat(count(DELIVERIES, taken)).isEqualTo(1);
        assertThat(ClaimTakeover.owner(store, IdempotencyKey.of(SCOPE, taken))).isEqualTo(THIEF);
        store.release(IdempotencyKey.of(SCOPE, taken), THIEF);
    }

    @Test
    void reSentCopiesOverThreeConsumersTakeEffectOnceAndEndCompletedInRedis() {
        String prefix = "c-" + UUID.randomUUID() + "-";
        int ids = 30;
        for (int copy = 0; copy < 3; copy++) {
            for (int i = 0; i < ids; i++) {
                publish(mainQueue, prefix + i, "credit " + i);
            }
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            int total = 0;
            for (int i = 0; i < ids; i++) {
                total += Math.min(count(DELIVERIES, prefix + i), 3);
            }
            return total == ids * 3;
        });
        awaitDrained(mainQueue);
        for (int i = 0; i < ids; i++) {
            assertThat(effects(prefix + i)).as(prefix + i).isEqualTo(1);
        }
        assertThat(EffectRows.like(jdbc, EFFECTS, prefix)).isEqualTo(ids);
        String[] all = new String[ids];
        for (int i = 0; i < ids; i++) {
            all[i] = prefix + i;
        }
        awaitCompleted(all);
    }

    @Test
    void aDeliveryWhoseListenerFailsIsRequeuedAndThenTakesEffectOnce() {
        String id = "fail-" + UUID.randomUUID();
        FAILURES.put(id, new AtomicInteger(1));
        publish(mainQueue, id, "credit 7");
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> effects(id) == 1);
        awaitDrained(mainQueue);
        assertThat(count(CALLS, id)).isEqualTo(2);
        assertThat(outcomes(id)).hasSize(2);
        assertThat(outcomes(id).get(0)).contains("IllegalStateException");
        assertThat(outcomes(id).get(1)).isEqualTo("ok");
        awaitCompleted(id);
        assertThat(effects(id)).isEqualTo(1);
    }

    @Test
    void aConsumerThatDiesBeforeItsAckIsRedeliveredAndNotRunAgain() {
        String id = "crash-" + UUID.randomUUID();
        CRASH_ONCE.add(id);
        publish(mainQueue, id, "credit 5");
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> count(DELIVERIES, id) >= 2);
        awaitDrained(mainQueue);
        assertThat(CRASH_ONCE).doesNotContain(id);
        assertThat(count(CALLS, id)).isEqualTo(1);
        assertThat(effects(id)).isEqualTo(1);
        awaitCompleted(id);
    }

    @Test
    void underBootsRetryAFailureIsRetriedAnAlwaysFailingMessageIsDeadLetteredReleasedAndTheNextRunsOnce() {
        String p = "retry-" + UUID.randomUUID() + "-";
        ALWAYS_FAIL.add(p + 1);
        FAILURES.put(p + 2, new AtomicInteger(1));
        // one consumer: message 0's completion is answered with message 1's claims, 1's release
        // comes before 2's claim
        RabbitDeadLetters.publishNumbered(rabbit, retryQueue.getName(), p, 4);
        assertThat(RabbitDeadLetters.take(rabbit, deadQueue.getName(), p, 1)).isEqualTo(Map.of(p + 1, "rejected"));
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> EffectRows.like(jdbc, EFFECTS, p) == 3);
        awaitDrained(retryQueue);
        assertThat(count(CALLS, p + 1)).as("attempts of the failing message").isEqualTo(3);
        assertThat(count(CALLS, p + 2)).as("attempts of the one failing once").isEqualTo(2);
        for (int i = 0; i < 4; i++) {
            assertThat(effects(p + i)).as(p + i).isEqualTo(i == 1 ? 0 : 1);
        }
        awaitCompleted(p + 0, p + 2, p + 3);
        assertThat(status(p + 1)).as("the dead-lettered key is released").isNull();
        assertThat(count(CALLS, p + 0)).isEqualTo(1);
        assertThat(count(CALLS, p + 3)).isEqualTo(1);
    }
}

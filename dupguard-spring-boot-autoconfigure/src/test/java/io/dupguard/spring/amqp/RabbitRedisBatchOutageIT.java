package io.dupguard.spring.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.BatchClaim;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.redis.RedisIdempotencyStore;
import io.dupguard.spring.EffectRows;
import io.dupguard.spring.autoconfigure.RedisProcess;
import io.dupguard.test.ExpectedWarnings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.ListenerContainerConsumerFailedEvent;
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
 * A batch listener ({@code List<Message>} per call, consumer batching, Boot's container settings:
 * a listener failure requeues, no retry) on the real RabbitMQ broker, in store mode on a Redis the
 * test owns (a private redis-server), which it stalls past the store's command timeout ({@code CLIENT
 * PAUSE … ALL}): the dedup's failure reaches Spring AMQP's container as a listener failure ({@code
 * ListenerExecutionFailedException}), which requeues the batch and goes on with the same consumer —
 * no {@link ListenerContainerConsumerFailedEvent}, so the auto-delete queue, whose only consumer it
 * is, stays with the requeued messages — and once the store is back every message takes effect once
 * (effect rows in PostgreSQL). Thrown bare from the advice chain, the failure would end the
 * consumer's loop: the container restarts the consumer and RabbitMQ deletes the queue with the
 * batch. Both places the batch path meets the store: the batch's claim, and the wait for a key in
 * flight elsewhere, which a message of the batch does alone after the rest (before the fix that wait's
 * failure, and a listener failure of the message run alone, left the dedup as a bare {@code
 * IllegalStateException}, "unexpected batch outcome Failed").
 */
@ExpectedWarnings("the container logs each batch the store's outage fails, and Lettuce its timed-out commands")
@DirtiesContext // closes its pool and its Redis client before the next IT's context
@SpringBootTest(classes = RabbitRedisBatchOutageIT.App.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
class RabbitRedisBatchOutageIT {
    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    static final String EFFECTS = "it_amqp_outage_effects_" + SUFFIX;
    static final String SCOPE = "it-amqp-outage-" + SUFFIX;
    static final ConsumerProbe PROBE = new ConsumerProbe("it.dupguard.outage.probe." + SUFFIX);
    /** The store's command timeout (spring.data.redis.timeout). */
    static final Duration TIMEOUT = Duration.ofMillis(400);
    /** How long the test stalls the store: several command timeouts. */
    static final Duration OUTAGE = Duration.ofSeconds(2);

    static Path redisDir;
    static RedisProcess redis;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) throws IOException {
        if (redis == null) { // the store's own server, which the test may stall: never the shared one
            redisDir = Files.createTempDirectory("dupguard-amqp-outage");
            redis = RedisProcess.server(redisDir, List.of());
        }
        String url = redis.url();
        RabbitItServers.register(r, "it_amqp_outage_idem_" + SUFFIX); // unused: the store is Redis
        r.add("dupguard.store", () -> "redis");
        r.add("spring.data.redis.url", () -> url);
        r.add("spring.data.redis.timeout", () -> TIMEOUT.toMillis() + "ms");
        r.add("dupguard.amqp.mode", () -> "store");
        r.add("dupguard.amqp.scope", () -> SCOPE);
        // long enough that the test sees the wait for a key in flight elsewhere and stalls the store in it
        r.add("dupguard.amqp.in-flight-wait", () -> "3s");
    }

    /** One delivery of a message to the dedup: a redelivery or not, and "ok" or the exception chain thrown. */
    record Delivery(boolean redelivered, String outcome) {
        boolean failedOnTheStore() {
            return outcome.startsWith("ListenerExecutionFailedException StoreUnavailableException");
        }
    }

    /** Deliveries to the dedup per message id, in order. */
    static final Map<String, List<Delivery>> DELIVERIES = new ConcurrentHashMap<>();
    /** Listener calls per message id. */
    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    /** Ids whose next listener call fails (before its effect). */
    static final Set<String> FAIL_ONCE = ConcurrentHashMap.newKeySet();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Listener.class)
    static class App {
        /**
         * Auto-delete, with one consumer: were that consumer restarted (a failure of the dedup thrown
         * bare from the advice chain), RabbitMQ would delete the queue with the requeued batch.
         */
        @Bean
        Queue probeQueue() {
            return PROBE.queue();
        }

        @Bean
        ConsumerProbe consumerProbe() {
            return PROBE;
        }

        /** Boot's settings (no retry: a listener failure requeues), one consumer, batches of up to 8. */
        @Bean
        SimpleRabbitListenerContainerFactory batchFactory(
                SimpleRabbitListenerContainerFactoryConfigurer configurer,
                ConnectionFactory connectionFactory,
                IdempotentMessageInterceptor dedup) {
            SimpleRabbitListenerContainerFactory f = new SimpleRabbitListenerContainerFactory();
            configurer.configure(f, connectionFactory);
            assertThat(f.getAdviceChain()).as("Boot's retry is off by default").isNull();
            f.setConcurrentConsumers(1);
            f.setBatchListener(true);
            f.setConsumerBatchEnabled(true);
            f.setBatchSize(8);
            f.setPrefetchCount(8);
            f.setReceiveTimeout(100L);
            f.setAdviceChain(recording(), dedup);
            return f;
        }

        /** Records each message's delivery to the dedup and what the dedup returned or threw for its batch. */
        private static MethodInterceptor recording() {
            return invocation -> {
                List<Message> batch = new ArrayList<>();
                for (Object m : (List<?>) invocation.getArguments()[1]) {
                    batch.add((Message) m);
                }
                String outcome = "ok";
                try {
                    return invocation.proceed();
                } catch (Throwable t) {
                    StringBuilder chain = new StringBuilder();
                    for (Throwable c = t; c != null; c = c.getCause()) {
                        chain.append(c.getClass().getSimpleName()).append(' ');
                    }
                    outcome = chain.toString().trim();
                    throw t;
                } finally {
                    for (Message m : batch) {
                        DELIVERIES
                                .computeIfAbsent(
                                        m.getMessageProperties().getMessageId(), k -> new CopyOnWriteArrayList<>())
                                .add(new Delivery(
                                        Boolean.TRUE.equals(
                                                m.getMessageProperties().isRedelivered()),
                                        outcome));
                    }
                }
            };
        }
    }

    static class Listener {
        private final JdbcTemplate jdbc;

        Listener(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @RabbitListener(queues = "#{probeQueue.name}", containerFactory = "batchFactory")
        public void onBatch(List<Message> batch) {
            for (Message m : batch) {
                String id = m.getMessageProperties().getMessageId();
                CALLS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                if (FAIL_ONCE.remove(id)) {
                    throw new IllegalStateException("the downstream failed for " + id);
                }
                jdbc.update("insert into " + EFFECTS + " (message_id) values (?)", id);
            }
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

    static JdbcTemplate cleanup;

    @BeforeAll
    static void table(@Autowired JdbcTemplate jdbc) {
        cleanup = jdbc;
        EffectRows.create(jdbc, EFFECTS);
    }

    @AfterAll
    static void drop() throws IOException {
        try {
            if (cleanup != null) {
                EffectRows.drop(cleanup, EFFECTS);
            }
        } finally {
            if (redis != null) {
                redis.close();
                try (var files = Files.list(redisDir)) {
                    for (Path file : files.toList()) {
                        Files.deleteIfExists(file);
                    }
                }
                Files.deleteIfExists(redisDir);
            }
        }
    }

    private static List<Delivery> deliveries(String id) {
        return DELIVERIES.getOrDefault(id, List.of());
    }

    private static int calls(String id) {
        AtomicInteger n = CALLS.get(id);
        return n == null ? 0 : n.get();
    }

    private int effects(String prefix) {
        return EffectRows.like(jdbc, EFFECTS, prefix);
    }

    private int effectsOf(String id) {
        return EffectRows.of(jdbc, EFFECTS, id);
    }

    /** Fails at once, not at the await's end, once the probe queue's consumer failed. */
    private static void noConsumerFailed(int before) {
        assertThat(PROBE.failures())
                .as("probe consumers that failed (an exception thrown bare from the dedup ended the consumer's loop)")
                .isEqualTo(before);
    }

    /** Awaits {@code condition}, failing at once if the probe queue's consumer fails meanwhile. */
    private static void awaitWithTheConsumer(int failuresBefore, Duration atMost, Callable<Boolean> condition) {
        Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(20)).until(() -> {
            noConsumerFailed(failuresBefore);
            return condition.call();
        });
    }

    /** The queue is there (not deleted and declared again: its messages took effect) and empty. */
    private void awaitDrained() {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            var info = admin.getQueueInfo(PROBE.name);
            assertThat(info).as("the auto-delete probe queue").isNotNull();
            return info.getMessageCount() == 0;
        });
    }

    private void awaitCompleted(String prefix, int n) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (int i = 0; i < n; i++) {
                assertThat(store.find(IdempotencyKey.of(SCOPE, prefix + i)).map(IdempotencyRecord::status))
                        .as(prefix + i)
                        .contains(RecordStatus.COMPLETED);
            }
        });
    }

    /** Releases what the test still holds; if the store does not answer, the claim's lease ends by itself. */
    private static void releaseQuietly(BatchClaim<?> claim) {
        try {
            claim.close();
        } catch (RuntimeException e) {
            // the test failed during the outage: its own failure is the one to report
        }
    }

    /** The store answers (its connection open, no pause of another test left) before a test stalls it. */
    @BeforeEach
    void theStoreAnswers() {
        Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> store.find(
                        IdempotencyKey.of(SCOPE, "warm-up"))
                .isEmpty());
        awaitDrained(); // nothing of another test left in flight: the Redis reads a test counts are its own
    }

    /** Another consumer's claim on {@code key}, with the body the listener's dedup sees. */
    private BatchClaim<Void> holdElsewhere(IdempotencyKey key, String body) {
        BatchClaim<Void> held = Idempotency.of(store, IdempotencyConfig.custom().build())
                .claimBatch(
                        List.of(new BatchEntry(key, Fingerprint.of(body.getBytes(StandardCharsets.UTF_8)))),
                        Void.class);
        assertThat(held.claimed()).as("claimed elsewhere").hasSize(1);
        return held;
    }

    @Test
    void aBatchWhoseClaimTheStoreCannotAnswerIsRequeuedAsAListenerFailureAndTakesEffectOnceWhenTheStoreIsBack() {
        assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
        String p = "o-" + UUID.randomUUID() + "-";
        int failuresBefore = PROBE.failures();
        redis.pause(OUTAGE);
        RabbitDeadLetters.publishNumbered(rabbit, PROBE.name, p, 8);
        // The batch's claim times out: the container gets a listener failure, requeues the batch and
        // goes on; once the outage ends by itself, the batch, redelivered to the same consumer, takes
        // effect. Were the consumer restarted instead, the queue would go with the batch.
        awaitWithTheConsumer(failuresBefore, Duration.ofSeconds(20), () -> effects(p) == 8);
        awaitDrained();
        assertThat(deliveries(p + 0).get(0).outcome())
                .as("what the dedup threw for the batch during the outage")
                .startsWith("ListenerExecutionFailedException StoreUnavailableException");
        for (int i = 0; i < 8; i++) {
            String id = p + i;
            List<Delivery> ds = deliveries(id);
            assertThat(effectsOf(id)).as("effects of " + id).isEqualTo(1);
            assertThat(calls(id)).as("listener calls of " + id).isEqualTo(1);
            assertThat(ds).as(id).hasSizeGreaterThanOrEqualTo(2);
            assertThat(ds.subList(0, ds.size() - 1)).as(id).allMatch(Delivery::failedOnTheStore);
            assertThat(ds.get(ds.size() - 1)).as(id).isEqualTo(new Delivery(true, "ok"));
        }
        noConsumerFailed(failuresBefore);
        awaitCompleted(p, 8);
    }

    @Test
    void aStoreOutageWhileABatchMessageWaitsForItsKeyInFlightElsewhereRequeuesTheBatchAsAListenerFailure() {
        String p = "w-" + UUID.randomUUID() + "-";
        int failuresBefore = PROBE.failures();
        IdempotencyKey heldKey = IdempotencyKey.of(SCOPE, p + 3);
        BatchClaim<Void> held = holdElsewhere(heldKey, "credit 3");
        try {
            long finds = redis.calls("get");
            RabbitDeadLetters.publishNumbered(rabbit, PROBE.name, p, 8);
            // the 7 others ran; message 3 waits alone for the key, reading its record (GET) until the wait ends
            awaitWithTheConsumer(failuresBefore, Duration.ofSeconds(10), () -> redis.calls("get") > finds);
            assertThat(effects(p)).isEqualTo(7);
            redis.pause(OUTAGE); // well within the 3 s wait: its next read times out
            awaitWithTheConsumer(failuresBefore, Duration.ofSeconds(10), () -> deliveries(p + 3).stream()
                    .anyMatch(d -> !d.outcome().equals("ok")));
            assertThat(deliveries(p + 3).stream()
                            .filter(d -> !d.outcome().equals("ok"))
                            .findFirst()
                            .orElseThrow()
                            .outcome())
                    .as("what the dedup threw for the batch when the wait's read failed")
                    .startsWith("ListenerExecutionFailedException StoreUnavailableException");
            // the store is back; the other consumer fails: its claim is released
            Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> store.find(heldKey)
                    .isPresent());
            held.close();
            awaitWithTheConsumer(failuresBefore, Duration.ofSeconds(20), () -> effectsOf(p + 3) == 1);
        } finally {
            releaseQuietly(held);
        }
        awaitDrained();
        for (int i = 0; i < 8; i++) {
            assertThat(effectsOf(p + i)).as("effects of " + p + i).isEqualTo(1);
            assertThat(calls(p + i)).as("listener calls of " + p + i).isEqualTo(1);
        }
        assertThat(effects(p)).isEqualTo(8);
        noConsumerFailed(failuresBefore);
        awaitCompleted(p, 8);
    }

    /**
     * The other half of the same path, without an outage: the listener fails for the message run
     * alone once the key it waited for is released; its failure goes to the container for the whole
     * batch, which is requeued (the others are duplicates then) and runs the message once.
     */
    @Test
    void aListenerFailureOfABatchMessageRunAloneAfterItsKeyWasReleasedElsewhereRequeuesTheBatch() {
        String p = "l-" + UUID.randomUUID() + "-";
        int failuresBefore = PROBE.failures();
        BatchClaim<Void> held = holdElsewhere(IdempotencyKey.of(SCOPE, p + 3), "credit 3");
        try {
            FAIL_ONCE.add(p + 3);
            long finds = redis.calls("get");
            RabbitDeadLetters.publishNumbered(rabbit, PROBE.name, p, 8);
            awaitWithTheConsumer(failuresBefore, Duration.ofSeconds(10), () -> redis.calls("get") > finds);
            held.close(); // the other consumer fails: message 3 runs alone, and its listener fails
            awaitWithTheConsumer(failuresBefore, Duration.ofSeconds(20), () -> effectsOf(p + 3) == 1);
        } finally {
            releaseQuietly(held);
        }
        awaitDrained();
        assertThat(FAIL_ONCE).doesNotContain(p + 3);
        assertThat(deliveries(p + 3).stream()
                        .filter(d -> !d.outcome().equals("ok"))
                        .map(Delivery::outcome)
                        .toList())
                .as("what reached the container for the batch when the listener failed")
                .containsExactly("ListenerExecutionFailedException IllegalStateException");
        for (int i = 0; i < 8; i++) {
            assertThat(effectsOf(p + i)).as("effects of " + p + i).isEqualTo(1);
            assertThat(calls(p + i)).as("listener calls of " + p + i).isEqualTo(i == 3 ? 2 : 1);
        }
        noConsumerFailed(failuresBefore);
        awaitCompleted(p, 8);
    }
}

package io.dupguard.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.BatchClaim;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.spring.IdempotentExecution;
import java.time.Duration;
import java.util.List;
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
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Transactional;

/**
 * The Kafka batch listener's failure matrix on the real (in-process KRaft) broker: a {@code
 * @Transactional} batch listener writing one PostgreSQL row per record, deduplicated by the starter's
 * interceptor (transactional mode, {@code key=header}), under Spring Kafka's default error handler
 * (the container's own {@code DefaultErrorHandler}: 9 retries, then a log line) and under a {@code
 * DefaultErrorHandler} with a {@link DeadLetterPublishingRecoverer} (2 retries, 100 ms apart); two
 * containers run a non-transactional listener behind a store-mode interceptor. Every record ends
 * with exactly one effect, or in the dead-letter topic with its reason, or (default handler) skipped
 * with a log line; none is committed without either. One context, one container per error handling
 * and ack mode; each test its own message ids.
 */
@SpringBootTest(classes = KafkaBatchMatrixIT.App.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@org.springframework.test.annotation.DirtiesContext
class KafkaBatchMatrixIT {
    @RegisterExtension
    static final KafkaCells CELLS = new KafkaCells("kmatrix");

    static final String WITH_DLT = CELLS.topic("mx.dlt");
    static final String DEFAULT = CELLS.topic("mx.default");
    static final String NACK = CELLS.topic("mx.nack");
    static final String NACK_DLT = CELLS.topic("mx.nackdlt");
    static final String STORE = CELLS.topic("mx.store");
    static final String STORE_DLT = CELLS.topic("mx.storedlt");
    static final String DLT = CELLS.topic("mx.dead");
    static final String S = CELLS.suffix;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        CELLS.register(r, "mx", 8, WITH_DLT, DEFAULT, NACK, NACK_DLT, STORE, STORE_DLT, DLT);
        r.add("it.mx.store", () -> STORE);
        r.add("it.mx.storedlt", () -> STORE_DLT);
        r.add("it.mx.dlt", () -> WITH_DLT);
        r.add("it.mx.default", () -> DEFAULT);
        r.add("it.mx.nack", () -> NACK);
        r.add("it.mx.nackdlt", () -> NACK_DLT);
        r.add("it.mx.dead", () -> DLT);
        r.add("dupguard.kafka.in-flight-wait", () -> "400ms");
        // the records layout, whose in-flight claims other consumers wait for and requeue around;
        // the processed layout (the default) is covered by KafkaDedupIT and the example's ledger
        r.add("dupguard.kafka.layout", () -> "records");
    }

    /** Ids whose next delivery fails in the listener with BatchListenerFailedException (by index). */
    static final Set<String> FAIL_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids that always fail in the listener. */
    static final Set<String> FAIL_ALWAYS = ConcurrentHashMap.newKeySet();
    /** Ids whose next delivery fails the listener with a plain exception (no record named). */
    static final Set<String> THROW_ONCE = ConcurrentHashMap.newKeySet();
    /** Ids the listener nacks once. */
    static final Set<String> NACK_ONCE = ConcurrentHashMap.newKeySet();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Listeners.class)
    static class App {
        /** A dead-letter recoverer: the starter marks the dedup's refusals not retryable on it. */
        @Bean
        DefaultErrorHandler deadLetters(KafkaTemplate<Object, Object> template) {
            return KafkaCells.deadLetters(template, DLT, 100, 2);
        }

        @Bean
        Batches batches(
                ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
                ConsumerFactory<Object, Object> consumers,
                IdempotentKafkaInterceptor dedup) {
            return new Batches(configurer, consumers, dedup);
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> dltBatch(Batches b, DefaultErrorHandler deadLetters) {
            return b.of(deadLetters, AckMode.BATCH);
        }

        /** Spring Kafka's default error handling: the container's own DefaultErrorHandler (log and skip). */
        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> defaultBatch(Batches b) {
            return b.of(null, AckMode.BATCH);
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> nackBatch(Batches b) {
            return b.of(null, AckMode.MANUAL);
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> nackDltBatch(
                Batches b, DefaultErrorHandler deadLetters) {
            return b.of(deadLetters, AckMode.MANUAL);
        }

        /** Store mode: the records complete in the store after the listener, its writes not in a transaction. */
        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> storeBatch(Batches b, IdempotencyStore store) {
            return b.with(storeMode(store)).of(null, AckMode.BATCH);
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<Object, Object> storeDltBatch(
                Batches b, IdempotencyStore store, DefaultErrorHandler deadLetters) {
            return b.with(storeMode(store)).of(deadLetters, AckMode.BATCH);
        }

        /** Not a bean: the starter's interceptor stays the transactional one. */
        static IdempotentKafkaInterceptor storeMode(IdempotencyStore store) {
            return new IdempotentKafkaInterceptor(
                    IdempotentExecution.store(Idempotency.of(store, IdempotencyConfig.ofDefaults())),
                    "kafka-store",
                    IdempotentKafkaInterceptor.header(KafkaItBroker.MESSAGE_ID),
                    true);
        }
    }

    /** Batch container factories as Boot configures them, each record counted, then the dedup. */
    record Batches(
            ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
            ConsumerFactory<Object, Object> consumers,
            IdempotentKafkaInterceptor dedup) {
        Batches with(IdempotentKafkaInterceptor other) {
            return new Batches(configurer, consumers, other);
        }

        ConcurrentKafkaListenerContainerFactory<Object, Object> of(CommonErrorHandler handler, AckMode ackMode) {
            return KafkaCells.factory(configurer, consumers, true, handler, ackMode, CELLS.counting(), dedup);
        }
    }

    static class Listeners {
        static final String POLL = ConsumerConfig.MAX_POLL_RECORDS_CONFIG + "=200";

        private final JdbcTemplate jdbc;

        Listeners(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        @KafkaListener(id = "mx-dlt", topics = "${it.mx.dlt}", containerFactory = "dltBatch", properties = POLL)
        @KafkaListener(
                id = "mx-default",
                topics = "${it.mx.default}",
                containerFactory = "defaultBatch",
                properties = POLL)
        public void batch(List<ConsumerRecord<String, String>> records) {
            handle(records, null);
        }

        @Transactional
        @KafkaListener(id = "mx-nack", topics = "${it.mx.nack}", containerFactory = "nackBatch", properties = POLL)
        @KafkaListener(
                id = "mx-nack-dlt",
                topics = "${it.mx.nackdlt}",
                containerFactory = "nackDltBatch",
                properties = POLL)
        public void manual(List<ConsumerRecord<String, String>> records, Acknowledgment ack) {
            handle(records, ack);
        }

        /** Store mode: each effect commits on its own as the listener writes it. */
        @KafkaListener(id = "mx-store", topics = "${it.mx.store}", containerFactory = "storeBatch", properties = POLL)
        @KafkaListener(
                id = "mx-store-dlt",
                topics = "${it.mx.storedlt}",
                containerFactory = "storeDltBatch",
                properties = POLL)
        public void store(List<ConsumerRecord<String, String>> records) {
            handle(records, null);
        }

        @KafkaListener(id = "mx-dead", topics = "${it.mx.dead}")
        public void dead(ConsumerRecord<String, String> record) {
            CELLS.deadLettered(record);
        }

        private void handle(List<ConsumerRecord<String, String>> records, Acknowledgment ack) {
            for (int i = 0; i < records.size(); i++) {
                ConsumerRecord<String, String> r = records.get(i);
                CELLS.saw(r);
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
                    CELLS.effect(jdbc, id);
                }
            }
            if (ack != null) {
                ack.acknowledge();
            }
        }
    }

    @Autowired
    KafkaTemplate<String, String> kafka;

    /** Sends {@code n} records {@code prefix + i} with values {@code "v-" + prefix + i} to {@code topic}. */
    private void sendAll(String topic, String prefix, int n) {
        for (int i = 0; i < n; i++) {
            KafkaCells.send(kafka, topic, prefix + i, "v-" + prefix + i);
        }
        kafka.flush();
    }

    /** Sends {@code n} records to {@code topic}: each takes effect once and none is dead-lettered. */
    private void eachOnceNoneDead(String topic, String prefix, int n) {
        sendAll(topic, prefix, n);
        CELLS.eachOnce(prefix, n, Set.of());
        assertThat(CELLS.deadLike("v-" + prefix)).isZero();
    }

    private void send(String topic, String id, String value) {
        KafkaCells.send(kafka, topic, id, value);
    }

    // --- duplicates

    @Test
    void copiesInOnePollAndAReSendLaterTakeEffectOnceAndNoneIsDeadLettered() {
        String p = "dd-" + S + "-";
        for (int i = 0; i < 20; i++) { // each id twice in one poll, same value
            send(WITH_DLT, p + i, "v-" + p + i);
            send(WITH_DLT, p + i, "v-" + p + i);
        }
        kafka.flush();
        CELLS.eachOnce(p, 20, Set.of());
        sendAll(WITH_DLT, p, 20); // the producer re-sends them all
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> CELLS.delivered(p + 19) == 3);
        CELLS.eachOnce(p, 20, Set.of());
        for (int i = 0; i < 20; i++) {
            assertThat(CELLS.delivered(p + i)).as(p + i).isEqualTo(3);
            assertThat(CELLS.seen("v-" + p + i))
                    .as("listener calls with " + p + i)
                    .isEqualTo(1);
        }
        assertThat(CELLS.deadLike("v-" + p)).isZero();
    }

    // --- records dupguard refuses

    @Test
    void keylessInvalidAndConflictingCopiesAreDeadLetteredAloneAndTheRestOfThePollTakesEffect() {
        String p = "dk-" + S + "-";
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
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> CELLS.deadLike("v-" + p) >= 3);
        CELLS.eachOnce(p, 60, Set.of(10, 20, 30)); // id 30 is never sent: record 30 carries id 25
        assertThat(CELLS.reason("v-" + p + 10)).contains("no idempotency key (header message-id)");
        assertThat(CELLS.reason("v-" + p + 20)).contains("idempotency key must be at most 255 characters");
        assertThat(CELLS.reason("v-" + p + 30)).contains(p + 25 + ") was already processed with a different value");
        assertThat(CELLS.deadLike("v-" + p)).isEqualTo(3);
    }

    @Test
    void underTheDefaultErrorHandlerAKeylessRecordIsSkippedAloneAndTheRestOfThePollTakesEffect() {
        String p = "fk-" + S + "-";
        for (int i = 0; i < 30; i++) {
            send(DEFAULT, i == 10 ? null : p + i, "v-" + p + i);
        }
        kafka.flush();
        CELLS.eachOnce(p, 30, Set.of(10));
        assertThat(CELLS.seen("v-" + p + 10)).isZero(); // refused before the listener
    }

    @Test
    void underTheDefaultErrorHandlerAnInvalidKeyAConflictingCopyAndAReusedKeyAreSkippedAloneTheRestTakesEffect() {
        String p = "fm-" + S + "-";
        send(DEFAULT, p + 5, "first");
        kafka.flush();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> CELLS.effects(p + 5) == 1);
        for (int i = 0; i < 40; i++) {
            String id = i == 10 ? p + "x".repeat(300) : i == 20 ? p + 15 : p + i;
            send(DEFAULT, id, "v-" + p + i); // 5: a key reused with another value; 20: id 15 again, another value
        }
        kafka.flush();
        CELLS.eachOnce(p, 40, Set.of(10, 20));
        for (int i : List.of(5, 10, 20)) {
            assertThat(CELLS.seen("v-" + p + i))
                    .as("listener calls with record " + i)
                    .isZero();
        }
        assertThat(CELLS.seen("first")).isEqualTo(1);
    }

    @Test
    void aKeyReusedWithAnotherValueIsDeadLetteredAloneTheRestTakesEffect() {
        String p = "dm-" + S + "-";
        send(WITH_DLT, p + 5, "first");
        kafka.flush();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> CELLS.effects(p + 5) == 1);
        sendAll(WITH_DLT, p, 20);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> CELLS.dead("v-" + p + 5) == 1);
        CELLS.eachOnce(p, 20, Set.of());
        assertThat(CELLS.reason("v-" + p + 5)).contains(p + 5 + ") was already processed with a different value");
        assertThat(CELLS.deadLike("v-" + p)).isEqualTo(1);
    }

    // --- a key in flight elsewhere

    /**
     * Record 7's key is claimed by another pool (committed in progress): the poll fails from it with
     * a RequestInFlightException cause (the rest ran), and once the claim is released its
     * redelivery takes effect once.
     */
    private void inFlightElsewhere(String topic, String p) {
        try (BatchClaim<Void> held = CELLS.holdClaim(p + 7, "v-" + p + 7)) {
            sendAll(topic, p, 20);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> CELLS.effectsLike(p) == 19);
            // failed from it and delivered again: released before the handler's retries run out
            Awaitility.await()
                    .pollInterval(Duration.ofMillis(5))
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> CELLS.delivered(p + 7) >= 2);
            assertThat(CELLS.effects(p + 7)).isZero();
        } // released: another consumer's failure
        CELLS.eachOnce(p, 20, Set.of());
        assertThat(CELLS.deadLike("v-" + p)).isZero();
        assertThat(CELLS.seen("v-" + p + 7)).isEqualTo(1);
    }

    @Test
    void underTheDefaultErrorHandlerAKeyInFlightElsewhereFailsFromItAndTakesEffectOnceWhenReleased() {
        inFlightElsewhere(DEFAULT, "fi-" + S + "-");
    }

    @Test
    void aKeyInFlightElsewhereFailsFromItAndTakesEffectOnceWhenReleasedBeforeTheDeadLetters() {
        inFlightElsewhere(WITH_DLT, "di-" + S + "-");
    }

    // --- the listener fails

    @Test
    void batchListenerFailedAtRecordKOnceKeepsThePrefixWithItsRecordsAndEveryRecordTakesEffectOnce() {
        String p = "db-" + S + "-";
        FAIL_ONCE.add(p + 7);
        eachOnceNoneDead(WITH_DLT, p, 20);
        assertThat(FAIL_ONCE).doesNotContain(p + 7);
        assertThat(CELLS.recordedByTheirClaim(p)).isEqualTo(20);
    }

    @Test
    void underTheDefaultErrorHandlerBatchListenerFailedAtRecordKOnceLeavesEveryRecordWithOneEffect() {
        String p = "fb-" + S + "-";
        FAIL_ONCE.add(p + 13);
        sendAll(DEFAULT, p, 30);
        CELLS.eachOnce(p, 30, Set.of());
        assertThat(CELLS.recordedByTheirClaim(p)).isEqualTo(30);
    }

    @Test
    void aRecordTheListenerAlwaysFailsIsDeadLetteredAloneAfterItsRetries() {
        String p = "da-" + S + "-";
        FAIL_ALWAYS.add(p + 4);
        // a duplicate before it: the listener's index counts only the records it got
        send(WITH_DLT, p + 1, "v-" + p + 1);
        sendAll(WITH_DLT, p, 12);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> CELLS.dead("v-" + p + 4) == 1);
        CELLS.eachOnce(p, 12, Set.of(4));
        assertThat(CELLS.reason("v-" + p + 4)).contains("listener failed at " + p + 4);
        assertThat(CELLS.seen("v-" + p + 4)).isEqualTo(3); // the delivery and 2 retries
        assertThat(CELLS.deadLike("v-" + p)).isEqualTo(1);
    }

    @Test
    void underTheDefaultErrorHandlerARecordTheListenerAlwaysFailsIsSkippedAloneAfterNineRetries() {
        String p = "fa-" + S + "-";
        FAIL_ALWAYS.add(p + 4);
        sendAll(DEFAULT, p, 12);
        CELLS.eachOnce(p, 12, Set.of(4));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> CELLS.seen("v-" + p + 4) >= 10);
        Awaitility.await()
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(3))
                .until(() -> CELLS.seen("v-" + p + 4) == 10); // the delivery and 9 retries, then a log line
    }

    @Test
    void aListenerFailureThatNamesNoRecordRollsThePollBackAndItsRetryTakesEffectOncePerRecord() {
        listenerFailsNamingNoRecord(WITH_DLT, "dt-" + S + "-");
    }

    @Test
    void underTheDefaultErrorHandlerAListenerFailureThatNamesNoRecordIsRetriedAndTakesEffectOncePerRecord() {
        listenerFailsNamingNoRecord(DEFAULT, "ft-" + S + "-");
    }

    private void listenerFailsNamingNoRecord(String topic, String p) {
        THROW_ONCE.add(p + 9);
        eachOnceNoneDead(topic, p, 20);
        assertThat(THROW_ONCE).doesNotContain(p + 9);
        assertThat(CELLS.seen("v-" + p + 0)).isEqualTo(2); // ran, rolled back, ran again
    }

    // --- nack

    private void nackAtRecordK(String topic, String p) {
        NACK_ONCE.add(p + 6);
        send(topic, p + 2, "v-" + p + 2); // a duplicate before it: the nack index counts the listener's records
        eachOnceNoneDead(topic, p, 20);
        assertThat(NACK_ONCE).doesNotContain(p + 6);
        assertThat(CELLS.seen("v-" + p + 6)).isEqualTo(2);
        assertThat(CELLS.seen("v-" + p + 0)).isEqualTo(1);
    }

    @Test
    void aNackAtRecordKRecordsThePrefixAndReleasesTheTailWhichTakesEffectOnRedelivery() {
        nackAtRecordK(NACK, "nk-" + S + "-");
    }

    @Test
    void withTheDeadLetterRecovererANackAtRecordKIsRedeliveredNotDeadLetteredAndTakesEffectOnce() {
        nackAtRecordK(NACK_DLT, "nd-" + S + "-");
    }

    // --- store mode

    /** The effects of the records before k committed as they ran: the retry from k does not repeat them. */
    private void storeModeFailsAtK(String topic, String p) {
        FAIL_ONCE.add(p + 8);
        eachOnceNoneDead(topic, p, 20);
        assertThat(FAIL_ONCE).doesNotContain(p + 8);
        for (int i = 0; i < 8; i++) {
            assertThat(CELLS.seen("v-" + p + i))
                    .as("listener calls with " + p + i)
                    .isEqualTo(1);
        }
        assertThat(CELLS.seen("v-" + p + 8)).isEqualTo(2);
    }

    @Test
    void underTheDefaultErrorHandlerInStoreModeAListenerFailureAtRecordKKeepsTheEffectsBeforeItOnce() {
        storeModeFailsAtK(STORE, "sf-" + S + "-");
    }

    @Test
    void inStoreModeAListenerFailureAtRecordKKeepsTheEffectsBeforeItOnceAndNothingIsDeadLettered() {
        storeModeFailsAtK(STORE_DLT, "sd-" + S + "-");
    }
}

package io.dupguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.BatchClaim;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.InFlightPolicy;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The batch engine in store mode on the jdbc store (PostgreSQL): a key in flight elsewhere is
 * waited for as the in-flight policy says, alone, after the rest of the batch; still in flight,
 * the batch stops at it with the rest done. A listener failure named at record k keeps the records
 * before k.
 */
class DeliveryBatchIT {
    private static final String TABLE =
            "it_dbatch_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private static final DriverManagerDataSource DS = new DriverManagerDataSource(
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
    private static final JdbcIdempotencyStore STORE = JdbcIdempotencyStore.builder(DS)
            .tableName(TABLE)
            .createSchemaIfMissing(true)
            .build();

    @AfterAll
    static void drop() {
        new JdbcTemplate(DS).execute("drop table if exists " + TABLE);
    }

    private static Idempotency idempotency(Duration wait) {
        return Idempotency.of(
                STORE,
                IdempotencyConfig.custom()
                        .inFlightPolicy(InFlightPolicy.waitUpTo(wait))
                        .build());
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("it", k);
    }

    private static DeliveryBatch<String> batch(String... ids) {
        DeliveryBatch<String> b = new DeliveryBatch<>();
        for (String id : ids) {
            b.add(id, key(id), Fingerprint.ofString(id));
        }
        return b;
    }

    /** Runs {@code batch} in store mode, adding each listener call's records to {@code calls}. */
    private static DeliveryBatch.Stop<String> run(
            DeliveryBatch<String> batch, Idempotency idem, List<List<String>> calls) throws Exception {
        return batch.run(
                IdempotentExecution.store(idem),
                fresh -> {
                    calls.add(fresh);
                    return null;
                },
                (e, fresh) -> null);
    }

    @Test
    void aKeyInFlightElsewhereIsWaitedForAloneAfterTheRestAndRunsWhenReleased() throws Exception {
        Idempotency idem = idempotency(Duration.ofSeconds(10));
        waitedForAloneAndRunsWhenReleased(idem, IdempotentExecution.store(idem));
    }

    @Test
    void inTransactionalModeAKeyInFlightElsewhereIsWaitedForAloneAndRunsWhenReleased() throws Exception {
        Idempotency idem = idempotency(Duration.ofSeconds(10));
        waitedForAloneAndRunsWhenReleased(
                idem,
                TransactionalExecution.transactional(
                        new SpringTransactionalIdempotency(STORE, DS, idem.config()),
                        new org.springframework.jdbc.datasource.DataSourceTransactionManager(DS)));
    }

    /** Another consumer holds b in flight and fails once the rest ran: b is waited for and runs alone. */
    private static void waitedForAloneAndRunsWhenReleased(Idempotency idem, IdempotentExecution execution)
            throws Exception {
        String p = UUID.randomUUID() + "-";
        BatchClaim<Void> held =
                idem.claimBatch(List.of(new BatchEntry(key(p + "b"), Fingerprint.ofString(p + "b"))), Void.class);
        assertThat(held.claimed()).hasSize(1);
        CountDownLatch restRan = new CountDownLatch(1);
        Thread other = new Thread(() -> {
            try {
                restRan.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            held.close(); // the other consumer fails: its claim is released while the batch waits
        });
        other.start();
        List<List<String>> calls = new CopyOnWriteArrayList<>();
        DeliveryBatch.Stop<String> stop = batch(p + "a", p + "b", p + "c")
                .run(
                        execution,
                        fresh -> {
                            calls.add(fresh);
                            restRan.countDown();
                            return null;
                        },
                        (e, fresh) -> null);
        other.join();
        assertThat(stop).isNull();
        assertThat(calls).containsExactly(List.of(p + "a", p + "c"), List.of(p + "b"));
    }

    @Test
    void aKeyStillInFlightAfterTheWaitStopsTheBatchThereWithTheRestRecorded() throws Exception {
        String p = UUID.randomUUID() + "-";
        Idempotency idem = idempotency(Duration.ofMillis(200));
        try (BatchClaim<Void> held =
                idem.claimBatch(List.of(new BatchEntry(key(p + "b"), Fingerprint.ofString(p + "b"))), Void.class)) {
            List<List<String>> calls = new CopyOnWriteArrayList<>();
            DeliveryBatch.Stop<String> stop = run(batch(p + "a", p + "b", p + "c"), idem, calls);
            assertThat(stop).isInstanceOf(DeliveryBatch.InFlight.class);
            assertThat(stop.index()).isEqualTo(1);
            assertThat(calls).containsExactly(List.of(p + "a", p + "c"));
        }
        // a and c are recorded: the redelivery from b leaves them out
        List<List<String>> again = new CopyOnWriteArrayList<>();
        DeliveryBatch.Stop<String> stop = run(batch(p + "b", p + "c"), idem, again);
        assertThat(stop).isNull();
        assertThat(again).containsExactly(List.of(p + "b"));
    }

    @Test
    void inStoreModeAListenerFailureNamedAtRecordKRecordsTheRecordsBeforeIt() throws Exception {
        String p = UUID.randomUUID() + "-";
        Idempotency idem = idempotency(Duration.ofMillis(200));
        RuntimeException failure = new IllegalStateException("failed at c");
        DeliveryBatch.Stop<String> stop = batch(p + "a", p + "b", p + "c", p + "d")
                .run(
                        IdempotentExecution.store(idem),
                        fresh -> {
                            throw failure;
                        },
                        (e, fresh) -> e == failure ? fresh.get(2) : null);
        assertThat(stop).isInstanceOf(DeliveryBatch.Failed.class);
        assertThat(stop.index()).isEqualTo(2);
        List<List<String>> again = new CopyOnWriteArrayList<>();
        assertThat(run(batch(p + "a", p + "b", p + "c", p + "d"), idem, again)).isNull();
        assertThat(again).containsExactly(List.of(p + "c", p + "d"));
    }

    /** Store mode claimed key by key, each claim nested in the previous (as the backstop mode claims). */
    private static IdempotentExecution keyByKey(Idempotency idem) {
        IdempotentExecution store = IdempotentExecution.store(idem);
        return new IdempotentExecution() {
            @Override
            public Mode mode() {
                return Mode.STORE;
            }

            @Override
            public <T, E extends Exception> io.dupguard.idempotency.Outcome<T> execute(
                    IdempotencyKey key,
                    Fingerprint fingerprint,
                    java.lang.reflect.Type type,
                    io.dupguard.idempotency.IdempotentWork<T, E> work)
                    throws E {
                return store.execute(key, fingerprint, type, work);
            }

            @Override
            public String describe() {
                return "key by key";
            }
        };
    }

    @Test
    void keyByKeyAKeyStillInFlightStopsTheBatchThereAfterTheRecordsBeforeItRan() throws Exception {
        String p = UUID.randomUUID() + "-";
        Idempotency idem = idempotency(Duration.ofMillis(200));
        List<List<String>> calls = new CopyOnWriteArrayList<>();
        DeliveryBatch.Stop<String> stop;
        try (BatchClaim<Void> held =
                idem.claimBatch(List.of(new BatchEntry(key(p + "b"), Fingerprint.ofString(p + "b"))), Void.class)) {
            stop = batch(p + "a", p + "b", p + "c")
                    .run(
                            keyByKey(idem),
                            fresh -> {
                                calls.add(fresh);
                                return null;
                            },
                            (e, fresh) -> null);
        }
        assertThat(stop).isInstanceOf(DeliveryBatch.InFlight.class);
        assertThat(stop.index()).isEqualTo(1);
        assertThat(calls).containsExactly(List.of(p + "a"));
        List<List<String>> again = new CopyOnWriteArrayList<>();
        assertThat(run(batch(p + "a", p + "b", p + "c"), idem, again)).isNull();
        assertThat(again).containsExactly(List.of(p + "b", p + "c"));
    }

    @Test
    void keyByKeyAListenerFailureNamedAtRecordKRunsTheRecordsBeforeItAgainAndKeepsThem() throws Exception {
        String p = UUID.randomUUID() + "-";
        Idempotency idem = idempotency(Duration.ofMillis(200));
        RuntimeException failure = new IllegalStateException("failed at c");
        List<List<String>> calls = new CopyOnWriteArrayList<>();
        DeliveryBatch.Stop<String> stop = batch(p + "a", p + "b", p + "c", p + "d")
                .run(
                        keyByKey(idem),
                        fresh -> {
                            calls.add(fresh);
                            if (fresh.size() == 4) {
                                throw failure;
                            }
                            return null;
                        },
                        (e, fresh) -> e == failure ? fresh.get(2) : null);
        assertThat(stop).isInstanceOf(DeliveryBatch.Failed.class);
        assertThat(stop.index()).isEqualTo(2);
        assertThat(calls).containsExactly(List.of(p + "a", p + "b", p + "c", p + "d"), List.of(p + "a", p + "b"));
        List<List<String>> again = new CopyOnWriteArrayList<>();
        assertThat(run(batch(p + "a", p + "b", p + "c", p + "d"), idem, again)).isNull();
        assertThat(again).containsExactly(List.of(p + "c", p + "d"));
    }

    @Test
    void aListenerFailureNamesTheDeliveryOfTheListWhichTheListenerGotNotOfTheBatch() throws Exception {
        String p = UUID.randomUUID() + "-";
        Idempotency idem = idempotency(Duration.ofMillis(200));
        RuntimeException failure = new IllegalStateException("failed at the third record it got");
        DeliveryBatch<String> b = batch(p + "a");
        b.add(p + "a copy", key(p + "a"), Fingerprint.ofString(p + "a")); // left out
        b.add(p + "b", key(p + "b"), Fingerprint.ofString(p + "b"));
        b.add(p + "c", key(p + "c"), Fingerprint.ofString(p + "c"));
        List<List<String>> calls = new CopyOnWriteArrayList<>();
        DeliveryBatch.Stop<String> stop = b.run(
                IdempotentExecution.store(idem),
                fresh -> {
                    calls.add(fresh);
                    throw failure;
                },
                (e, fresh) -> e == failure ? fresh.get(2) : null);
        assertThat(calls).containsExactly(List.of(p + "a", p + "b", p + "c"));
        assertThat(stop.delivery()).isEqualTo(p + "c");
        assertThat(stop.index()).isEqualTo(3);
    }
}

package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.Outcome;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.spring.SpringTransactionalIdempotency;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/** The jdbc store on the application's PostgreSQL DataSource, joining Spring transactions. */
class JdbcStoreIT {
    static final String PG =
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String idemTable = "it_idem_" + suffix;
    private final String effects = "it_effects_" + suffix;

    private ApplicationContextRunner runner(String... extra) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class,
                        DupguardAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + PG, "dupguard.jdbc.idempotency-table=" + idemTable)
                .withPropertyValues(extra);
    }

    private static int count(ApplicationContext ctx, String table) {
        return ctx.getBean(JdbcTemplate.class).queryForObject("select count(*) from " + table, Integer.class);
    }

    @Test
    void aRollbackOfTheCallersTransactionRollsTheClaimBackAndARetryRunsAgain() throws Exception {
        runner().run(ctx -> {
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            jdbc.execute("create table " + effects + " (id serial primary key, k text not null)");
            try {
                SpringTransactionalIdempotency idem = ctx.getBean(SpringTransactionalIdempotency.class);
                TransactionTemplate tx = ctx.getBean(TransactionTemplate.class);
                IdempotencyKey key = IdempotencyKey.of("orders", "o-" + suffix);
                Fingerprint fp = Fingerprint.ofString("order");

                assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
                            Outcome<String> out = idem.execute(key, fp, String.class, () -> {
                                jdbc.update("insert into " + effects + " (k) values (?)", "first");
                                return "ok";
                            });
                            assertThat(out.isReplay()).isFalse();
                            throw new IllegalStateException("caller fails after the work");
                        }))
                        .hasMessage("caller fails after the work");
                assertThat(ctx.getBean(IdempotencyStore.class).find(key)).isEmpty();
                assertThat(count(ctx, effects)).isZero();

                Outcome<String> retry = tx.execute(s -> idem.execute(key, fp, String.class, () -> {
                    jdbc.update("insert into " + effects + " (k) values (?)", "retry");
                    return "ok";
                }));
                assertThat(retry.isReplay()).isFalse();
                Outcome<String> again = tx.execute(s -> idem.execute(key, fp, String.class, () -> {
                    jdbc.update("insert into " + effects + " (k) values (?)", "again");
                    return "never";
                }));
                assertThat(again.isReplay()).isTrue();
                assertThat(again.value()).isEqualTo("ok");
                assertThat(count(ctx, effects)).isEqualTo(1);

                assertThatThrownBy(() -> idem.execute(key, fp, String.class, () -> "no transaction"))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("@Transactional");
            } finally {
                jdbc.execute("drop table " + effects);
                jdbc.execute("drop table " + idemTable);
            }
        });
    }

    @Test
    void concurrentTransactionsOnOneKeyCommitOneEffect() throws Exception {
        runner("spring.datasource.hikari.maximum-pool-size=20").run(ctx -> {
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            jdbc.execute("create table " + effects + " (id serial primary key, k text not null)");
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                SpringTransactionalIdempotency idem = ctx.getBean(SpringTransactionalIdempotency.class);
                TransactionTemplate tx = ctx.getBean(TransactionTemplate.class);
                IdempotencyKey key = IdempotencyKey.of("orders", "c-" + suffix);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Outcome<String>>> futures = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    futures.add(pool.submit(() -> {
                        start.await();
                        return tx.execute(s -> idem.execute(key, Fingerprint.none(), String.class, () -> {
                            jdbc.update("insert into " + effects + " (k) values (?)", "x");
                            return "charged";
                        }));
                    }));
                }
                start.countDown();
                int first = 0;
                for (Future<Outcome<String>> f : futures) {
                    Outcome<String> o = f.get();
                    assertThat(o.value()).isEqualTo("charged");
                    first += o.isReplay() ? 0 : 1;
                }
                assertThat(first).isEqualTo(1);
                assertThat(count(ctx, effects)).isEqualTo(1);
            } finally {
                pool.shutdownNow();
                jdbc.execute("drop table " + effects);
                jdbc.execute("drop table " + idemTable);
            }
        });
    }

    @Test
    void purgeDeletesExpiredRecordsInBoundedBatchesAndOnItsSchedule() throws Exception {
        runner(
                        "dupguard.idempotency.retention=1ms",
                        // A row becomes purgeable lease + retention after its claim (the store sets its
                        // indexed purge time once, at the claim): a short lease keeps the test short.
                        "dupguard.idempotency.in-flight-lease=1s",
                        "dupguard.purge.batch-size=2",
                        "dupguard.purge.max-batches-per-run=2",
                        "dupguard.purge.interval=1h")
                .run(ctx -> {
                    try {
                        Idempotency idem = ctx.getBean(Idempotency.class);
                        for (int i = 0; i < 10; i++) {
                            idem.execute(IdempotencyKey.of("p", "k" + i), Fingerprint.none(), String.class, () -> "v");
                        }
                        DupguardPurger purger = ctx.getBean(DupguardPurger.class);
                        // Once all ten rows are purgeable by the database's clock (the claims ran over
                        // some time on a loaded machine), each run deletes exactly 2 batches of 2.
                        JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
                        Awaitility.await()
                                .atMost(Duration.ofSeconds(10))
                                .until(() -> jdbc.queryForObject(
                                                "select count(*) from " + idemTable
                                                        + " where purge_after < current_timestamp",
                                                Integer.class)
                                        == 10);
                        assertThat(purger.purgeOnce().idempotency()).isEqualTo(4);
                        assertThat(count(ctx, idemTable)).isEqualTo(6);
                        // without a cap (the default) a run drains the backlog, paced by the duty cycle
                        DupguardProperties.Purge uncapped = new DupguardProperties.Purge();
                        uncapped.setBatchSize(2);
                        uncapped.setDutyCycle(0.5);
                        DupguardPurger draining =
                                new DupguardPurger(ctx.getBean(JdbcIdempotencyStore.class), null, null, uncapped);
                        assertThat(draining.purgeOnce().idempotency()).isEqualTo(6);
                        assertThat(count(ctx, idemTable)).isZero();
                    } finally {
                        ctx.getBean(JdbcTemplate.class).execute("drop table " + idemTable);
                    }
                });
        runner(
                        "dupguard.idempotency.retention=1ms",
                        "dupguard.idempotency.in-flight-lease=1s",
                        "dupguard.purge.interval=50ms")
                .run(ctx -> {
                    try {
                        Idempotency idem = ctx.getBean(Idempotency.class);
                        for (int i = 0; i < 5; i++) {
                            idem.execute(IdempotencyKey.of("p", "s" + i), Fingerprint.none(), String.class, () -> "v");
                        }
                        assertThat(ctx.getBean(DupguardPurger.class).isRunning())
                                .isTrue();
                        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> count(ctx, idemTable) == 0);
                    } finally {
                        ctx.getBean(JdbcTemplate.class).execute("drop table " + idemTable);
                    }
                });
    }

    /** An {@code @Idempotent} method whose insert and record must commit together. */
    public static class Orders {
        static volatile String table;
        final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        private final JdbcTemplate jdbc;

        public Orders(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        public int runs() {
            return runs.get();
        }

        @io.dupguard.spring.annotation.Idempotent(scope = "orders", key = "#id")
        public String place(String id, boolean failAfterInsert) {
            runs.incrementAndGet();
            jdbc.update("insert into " + table + " (k) values (?)", id);
            if (failAfterInsert) {
                throw new IllegalStateException("fails after its insert");
            }
            return "placed " + id;
        }

        @io.dupguard.spring.annotation.Idempotent(scope = "orders", key = "#id")
        public void ship(String id) {
            runs.incrementAndGet();
            jdbc.update("insert into " + table + " (k) values (?)", id);
        }
    }

    /**
     * Runs {@code body} in a context with the {@link Orders} bean (AOP on) and its effects table,
     * dropping the table and the idempotency table afterwards.
     */
    private void withOrders(
            String[] properties,
            org.springframework.boot.test.context.runner.ContextConsumer<
                            org.springframework.boot.test.context.assertj.AssertableApplicationContext>
                    body) {
        Orders.table = effects;
        runner(properties)
                .withConfiguration(
                        AutoConfigurations.of(org.springframework.boot.autoconfigure.aop.AopAutoConfiguration.class))
                .withBean(Orders.class)
                .run(ctx -> {
                    JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
                    jdbc.execute("create table " + effects + " (id serial primary key, k text not null)");
                    try {
                        body.accept(ctx);
                    } finally {
                        jdbc.execute("drop table " + effects);
                        jdbc.execute("drop table if exists " + idemTable);
                    }
                });
    }

    @Test
    void aVoidIdempotentMethodWritesTheProcessedMessagesTableWithVoidLayoutProcessed() {
        withOrders(new String[] {"dupguard.idempotency.void-layout=processed"}, ctx -> {
            Orders orders = ctx.getBean(Orders.class);
            String id = "s-" + suffix;
            orders.ship(id);
            orders.ship(id);
            ctx.getBean(org.springframework.transaction.support.TransactionTemplate.class)
                    .executeWithoutResult(status -> orders.ship(id)); // joining the caller's
            assertThat(orders.runs()).isEqualTo(1);
            assertThat(count(ctx, effects)).isEqualTo(1);
            assertThat(ctx.getBean(io.dupguard.jdbc.JdbcProcessedMessages.class)
                            .isProcessed(IdempotencyKey.of("orders", id)))
                    .isTrue();
            assertThat(ctx.getBean(IdempotencyStore.class).find(IdempotencyKey.of("orders", id)))
                    .as("nothing in the records table")
                    .isEmpty();
            // a result is still recorded in the records table
            assertThat(orders.place("p-" + suffix, false)).isEqualTo("placed p-" + suffix);
            assertThat(ctx.getBean(IdempotencyStore.class).find(IdempotencyKey.of("orders", "p-" + suffix)))
                    .isPresent();
        });
    }

    @Test
    void anIdempotentMethodRunsInATransactionWithItsRecordByDefault() {
        withOrders(new String[0], ctx -> {
            Orders orders = ctx.getBean(Orders.class);
            String id = "o-" + suffix;
            // no @Transactional anywhere: the advice begins the transaction itself
            assertThatThrownBy(() -> orders.place(id, true)).hasMessage("fails after its insert");
            assertThat(count(ctx, effects))
                    .as("the insert rolled back with the claim")
                    .isZero();
            assertThat(ctx.getBean(IdempotencyStore.class).find(IdempotencyKey.of("orders", id)))
                    .isEmpty();
            assertThat(orders.place(id, false)).isEqualTo("placed " + id);
            assertThat(orders.place(id, false)).isEqualTo("placed " + id);
            assertThat(orders.runs()).isEqualTo(2);
            assertThat(count(ctx, effects)).isEqualTo(1);
        });
    }

    /**
     * The store knows its database before the first request: its first use inside a transaction
     * that holds the pool's only connection needs no second one (left to the first use, the
     * detection waited for the pool's timeout and failed the request).
     */
    @Test
    void theFirstUseInATransactionHoldingThePoolsOnlyConnectionNeedsNoSecondOne() {
        runner("spring.datasource.hikari.maximum-pool-size=1", "spring.datasource.hikari.connection-timeout=1000")
                .run(ctx -> {
                    try {
                        SpringTransactionalIdempotency idem = ctx.getBean(SpringTransactionalIdempotency.class);
                        TransactionTemplate tx = ctx.getBean(TransactionTemplate.class);
                        IdempotencyKey key = IdempotencyKey.of("orders", "first-" + suffix);
                        Outcome<String> out = tx.execute(
                                status -> idem.execute(key, Fingerprint.ofString("order"), String.class, () -> "ok"));
                        assertThat(out.isReplay()).isFalse();
                        assertThat(ctx.getBean(IdempotencyStore.class).find(key))
                                .isPresent();
                    } finally {
                        ctx.getBean(JdbcTemplate.class).execute("drop table if exists " + idemTable);
                    }
                });
    }

    @Test
    void aListenerInTransactionalModeWaitsItsInFlightWaitForAKeyClaimedInAutocommitElsewhere() throws Exception {
        runner("dupguard.store=jdbc").run(ctx -> {
            try {
                IdempotencyStore store = ctx.getBean(IdempotencyStore.class);
                DupguardProperties.Kafka kafka = new DupguardProperties.Kafka();
                kafka.setInFlightWait(Duration.ofSeconds(20));
                // the records layout: a processed-messages table has no in-flight rows to wait for
                kafka.setLayout(DupguardProperties.ListenerLayout.RECORDS);
                io.dupguard.spring.IdempotentExecution execution = ExecutionResolver.listener(
                        ctx.getBeanProvider(ExecutionResolver.class),
                        "the Kafka listener dedup",
                        "dupguard.kafka",
                        kafka,
                        store,
                        ctx.getBean(io.dupguard.idempotency.IdempotencyConfig.class));
                assertThat(execution.mode()).isEqualTo(io.dupguard.spring.IdempotentExecution.Mode.TRANSACTIONAL);
                IdempotencyKey key = IdempotencyKey.of("kafka", "held-" + suffix);
                // another consumer (store mode, autocommit) holds the key in flight
                io.dupguard.idempotency.BatchClaim<Void> held = Idempotency.of(store)
                        .claimBatch(
                                List.of(new io.dupguard.idempotency.BatchEntry(key, Fingerprint.none())), Void.class);
                assertThat(held.claimed()).hasSize(1);
                ExecutorService pool = Executors.newSingleThreadExecutor();
                try {
                    Future<Outcome<Void>> run =
                            pool.submit(() -> execution.execute(key, Fingerprint.none(), Void.class, () -> null));
                    // it waits (the application's default would refuse at once)
                    Awaitility.await()
                            .during(Duration.ofMillis(500))
                            .atMost(Duration.ofSeconds(5))
                            .until(() -> !run.isDone());
                    held.close(); // the other consumer fails: released
                    assertThat(run.get(20, java.util.concurrent.TimeUnit.SECONDS)
                                    .isReplay())
                            .isFalse();
                } finally {
                    pool.shutdownNow();
                }
            } finally {
                ctx.getBean(JdbcTemplate.class).execute("drop table if exists " + idemTable);
            }
        });
    }
}

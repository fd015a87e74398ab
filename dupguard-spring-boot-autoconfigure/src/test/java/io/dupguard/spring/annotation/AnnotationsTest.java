package io.dupguard.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.idempotency.RequestInFlightException;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockUnavailableException;
import io.dupguard.spring.autoconfigure.DupguardAutoConfiguration;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

class AnnotationsTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DupguardAutoConfiguration.class));

    record Charge(String id, BigDecimal amount) {}

    record Receipt(String id, BigDecimal amount, Instant at, Optional<String> note) {}

    public static class Payments {
        final AtomicInteger runs = new AtomicInteger();
        volatile CountDownLatch entered = new CountDownLatch(1);
        volatile CountDownLatch release = new CountDownLatch(0);

        // Reached through methods: the fields of a class-based proxy are not the target's.
        public AtomicInteger runs() {
            return runs;
        }

        public CountDownLatch block() {
            entered = new CountDownLatch(1);
            release = new CountDownLatch(1);
            return entered;
        }

        public void unblock() {
            release.countDown();
        }

        @Idempotent(scope = "payments", key = "#charge.id", fingerprint = "#charge.amount")
        public Receipt pay(Charge charge) throws InterruptedException {
            runs.incrementAndGet();
            entered.countDown();
            release.await(10, TimeUnit.SECONDS);
            return new Receipt(charge.id(), charge.amount(), Instant.now(), Optional.of("n"));
        }

        @Idempotent(scope = "waiting", key = "#charge.id", inFlight = Idempotent.InFlightMode.WAIT, maxWait = "20s")
        public Receipt payWaiting(Charge charge) throws InterruptedException {
            return pay(charge); // a self-call: pay's own advice does not apply, by Spring AOP's rule
        }

        @Idempotent(scope = "batches", key = "#p0")
        public List<Receipt> batch(String id, List<Charge> charges) {
            runs.incrementAndGet();
            List<Receipt> out = new ArrayList<>();
            for (Charge c : charges) {
                out.add(new Receipt(c.id(), c.amount(), Instant.EPOCH, Optional.empty()));
            }
            return out;
        }

        @Idempotent(
                scope = "counts",
                key = "#id",
                fingerprint = {})
        public int count(String id) {
            return runs.incrementAndGet();
        }

        @Idempotent(scope = "failing", key = "#id")
        public Map<String, Long> failing(String id, boolean fail) {
            runs.incrementAndGet();
            if (fail) {
                throw new IllegalStateException("boom");
            }
            return Map.of("n", 1L);
        }
    }

    public static class Accounts {
        long balance; // deliberately unsynchronised: the lock must serialise the updates
        final List<Long> tokens = new ArrayList<>();

        public long balance() {
            return balance;
        }

        public List<Long> tokens() {
            return tokens;
        }

        @DistributedLock(name = "'account:' + #id")
        public long credit(String id, long amount) {
            Lease lease = DistributedLocks.currentLease();
            assertThat(lease.name()).isEqualTo("account:" + id);
            long read = balance;
            Thread.yield();
            balance = read + amount;
            synchronized (tokens) {
                tokens.add(lease.fencingToken());
            }
            return lease.fencingToken();
        }

        @DistributedLock(name = "'busy'", waitTime = "0s")
        public void busy() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Payments payments() {
            return new Payments();
        }

        @Bean
        Accounts accounts() {
            return new Accounts();
        }
    }

    @Test
    void duplicatesReplayTheStoredReturnValueWithItsGenericType() throws Exception {
        runner.withUserConfiguration(Beans.class).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            Payments p = ctx.getBean(Payments.class);
            Charge c = new Charge("c-1", new BigDecimal("12.30"));
            Receipt first = p.pay(c);
            Receipt again = p.pay(c);
            assertThat(again).isEqualTo(first);
            assertThat(p.runs()).hasValue(1);

            List<Charge> charges = List.of(c, new Charge("c-2", BigDecimal.ONE));
            List<Receipt> b1 = p.batch("b-1", charges);
            List<Receipt> b2 = p.batch("b-1", charges);
            assertThat(b2).isEqualTo(b1);
            assertThat(b2.get(0)).isInstanceOf(Receipt.class);
            assertThat(p.runs()).hasValue(2);

            int n = p.count("x");
            assertThat(p.count("x")).isEqualTo(n);
        });
    }

    @Test
    void aDifferentFingerprintIsRefusedAndFailuresReleaseTheKey() {
        runner.withUserConfiguration(Beans.class).run(ctx -> {
            Payments p = ctx.getBean(Payments.class);
            p.pay(new Charge("c-9", BigDecimal.ONE));
            assertThatThrownBy(() -> p.pay(new Charge("c-9", BigDecimal.TEN)))
                    .isInstanceOf(PayloadMismatchException.class);

            assertThatThrownBy(() -> p.failing("f", true)).hasMessage("boom");
            assertThat(p.failing("f", false)).containsEntry("n", 1L);
            assertThat(p.failing("f", false)).containsEntry("n", 1L);
            assertThat(p.runs()).hasValue(3);
        });
    }

    @Test
    void aDuplicateWhileTheFirstRunsIsRejected() {
        runner.withUserConfiguration(Beans.class).run(ctx -> {
            Payments p = ctx.getBean(Payments.class);
            CountDownLatch entered = p.block();
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Charge c = new Charge("c-slow", BigDecimal.ONE);
                Future<Receipt> first = pool.submit(() -> p.pay(c));
                assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
                assertThatThrownBy(() -> p.pay(c)).isInstanceOf(RequestInFlightException.class);
                p.unblock();
                Receipt ran = first.get(10, TimeUnit.SECONDS);
                assertThat(p.pay(c)).isEqualTo(ran);
            } finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void withInFlightWaitADuplicateWaitsForTheFirstAndGetsItsResult() {
        runner.withUserConfiguration(Beans.class).run(ctx -> {
            Payments p = ctx.getBean(Payments.class);
            CountDownLatch entered = p.block();
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Charge c = new Charge("c-wait", BigDecimal.TEN);
                Future<Receipt> first = pool.submit(() -> p.payWaiting(c));
                assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
                Future<Receipt> duplicate = pool.submit(() -> p.payWaiting(c));
                // Both calls are inside the executor (the duplicate found the first in progress).
                io.dupguard.spring.DupguardActivity activity = ctx.getBean(io.dupguard.spring.DupguardActivity.class);
                org.awaitility.Awaitility.await()
                        .atMost(java.time.Duration.ofSeconds(10))
                        .until(() -> activity.inFlightKeys().stream()
                                        .filter(k -> k.scope().equals("waiting"))
                                        .count()
                                == 2);
                assertThat(duplicate.isDone()).isFalse();
                p.unblock();
                assertThat(duplicate.get(20, TimeUnit.SECONDS)).isEqualTo(first.get(20, TimeUnit.SECONDS));
                assertThat(p.runs()).hasValue(1);
            } finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void theLockSerialisesConcurrentCallsAndItsLeaseIsReachableInside() {
        runner.withUserConfiguration(Beans.class).run(ctx -> {
            Accounts a = ctx.getBean(Accounts.class);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Long>> futures = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    futures.add(pool.submit(() -> {
                        start.await();
                        return a.credit("1", 1);
                    }));
                }
                start.countDown();
                for (Future<Long> f : futures) {
                    f.get(30, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(a.balance()).isEqualTo(200);
            assertThat(a.tokens()).doesNotHaveDuplicates().hasSize(200);
            assertThatThrownBy(DistributedLocks::currentLease).isInstanceOf(IllegalStateException.class);

            try (Lease held = ctx.getBean(io.dupguard.lock.LockProvider.class)
                    .acquire(
                            "busy",
                            io.dupguard.lock.LockOptions.custom()
                                    .owner("someone-else")
                                    .build())) {
                assertThat(held.fencingToken()).isPositive();
                assertThatThrownBy(a::busy).isInstanceOf(LockUnavailableException.class);
            }
        });
    }

    // ---- start-up errors ----

    public static class BadSpel {
        @Idempotent(scope = "s", key = "#id +")
        public String run(String id) {
            return id;
        }
    }

    public static class PrivateMethod {
        @DistributedLock(name = "'x'")
        private void run() {}

        public void caller() {
            run();
        }
    }

    public static class FinalMethod {
        @Idempotent(scope = "s", key = "#id")
        public final String run(String id) {
            return id;
        }
    }

    public static class BadScopeAndDuration {
        @Idempotent(scope = "bad scope!", key = "#id")
        public String run(String id) {
            return id;
        }

        @DistributedLock(name = "'x'", waitTime = "soon")
        public void lock() {}
    }

    public interface Shape {}

    public static class OpaqueResult {
        @Idempotent(scope = "s", key = "#id")
        public Shape run(String id) {
            return null;
        }
    }

    public static class AsyncResult {
        @Idempotent(scope = "s", key = "#id")
        public java.util.concurrent.CompletableFuture<String> run(String id) {
            return null;
        }
    }

    private void failsStartUp(Class<?> bean, String... messages) {
        runner.withBean(bean).run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).hasStackTraceContaining(bean.getSimpleName());
            for (String m : messages) {
                assertThat(ctx.getStartupFailure()).hasStackTraceContaining(m);
            }
        });
    }

    @Test
    void unusableAnnotationsFailStartUpNamingMethodAndAttribute() {
        failsStartUp(BadSpel.class, "@Idempotent(key) = \"#id +\" is not valid SpEL");
        failsStartUp(PrivateMethod.class, "PrivateMethod#run is private");
        failsStartUp(FinalMethod.class, "FinalMethod#run is final");
        failsStartUp(BadScopeAndDuration.class, "@Idempotent(scope)", "@DistributedLock(waitTime) = \"soon\"");
        failsStartUp(OpaqueResult.class, "Shape", "@JsonTypeInfo");
        failsStartUp(AsyncResult.class, "completes later");
    }

    // ---- joining the caller's transaction (jdbc store on H2) ----

    public static class Ledger {
        final JdbcTemplate jdbc;

        public Ledger(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Idempotent(scope = "ledger", key = "#id")
        public String post(String id) {
            jdbc.update("insert into ledger_effects (k) values (?)", id);
            return "posted " + id;
        }
    }

    public static class Checkout {
        final Ledger ledger;

        public Checkout(Ledger ledger) {
            this.ledger = ledger;
        }

        @Transactional
        public String checkout(String id, boolean failAfter) {
            String out = ledger.post(id);
            if (failAfter) {
                throw new IllegalStateException("checkout failed after posting");
            }
            return out;
        }
    }

    @Test
    void aRolledBackCallerTransactionUndoesTheClaimSoTheRetryRunsAgain() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class,
                        DupguardAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
                .withBean(Ledger.class)
                .withBean(Checkout.class)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
                    jdbc.execute("create table ledger_effects (k varchar(64) not null)");
                    Checkout checkout = ctx.getBean(Checkout.class);
                    assertThatThrownBy(() -> checkout.checkout("t-1", true)).hasMessageContaining("after posting");
                    assertThat(jdbc.queryForObject("select count(*) from ledger_effects", Integer.class))
                            .isZero();
                    assertThat(ctx.getBean(IdempotencyStore.class)
                                    .find(io.dupguard.idempotency.IdempotencyKey.of("ledger", "t-1")))
                            .isEmpty();
                    assertThat(checkout.checkout("t-1", false)).isEqualTo("posted t-1");
                    assertThat(checkout.checkout("t-1", false)).isEqualTo("posted t-1");
                    assertThat(ctx.getBean(Ledger.class).post("t-1")).isEqualTo("posted t-1");
                    assertThat(jdbc.queryForObject("select count(*) from ledger_effects", Integer.class))
                            .isEqualTo(1);
                });
    }
}

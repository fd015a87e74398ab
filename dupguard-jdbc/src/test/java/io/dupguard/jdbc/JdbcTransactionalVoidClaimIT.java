package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.jdbc.TestDatabases.Db;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A {@code Void} call in the caller's transaction writes its record once: the claim inserts the row
 * already completed, and no completion follows. The row commits or rolls back with the work.
 */
class JdbcTransactionalVoidClaimIT {
    private HikariDataSource ds;
    private HikariDataSource otherPool;
    private JdbcIdempotencyStore store;
    private String scope;
    private final AtomicLong statements = new AtomicLong();

    private JdbcTransactionalIdempotency setUp(Db db, IdempotencyConfig config) throws SQLException {
        ds = TestDatabases.pool(db, 4);
        scope = "void-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        try (Connection c = ds.getConnection()) {
            TestOrders.createTable(c);
        }
        store = TestDatabases.store(ds);
        return JdbcTransactionalIdempotency.of(store, config);
    }

    @AfterEach
    void close() {
        ds.close();
        if (otherPool != null) {
            otherPool.close();
        }
    }

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, k);
    }

    private int orders(String orderNo) throws SQLException {
        return TestOrders.count(ds, scope, orderNo);
    }

    /** Runs a Void call on a new connection of {@code pool} and commits (rolls back if it throws). */
    private Outcome<Void> inTransaction(
            HikariDataSource pool, JdbcTransactionalIdempotency tx, String k, Fingerprint fp, String orderNo)
            throws SQLException {
        return inTransaction(pool, tx, k, fp, orderNo, new AtomicInteger());
    }

    private Outcome<Void> inTransaction(
            HikariDataSource pool,
            JdbcTransactionalIdempotency tx,
            String k,
            Fingerprint fp,
            String orderNo,
            AtomicInteger runs)
            throws SQLException {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                Outcome<Void> out = tx.execute(c, key(k), fp, Void.class, conn -> {
                    runs.incrementAndGet();
                    TestOrders.insert(conn, scope, orderNo);
                    return null;
                });
                c.commit();
                return out;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void aFreshKeyCostsOneStatementTheCompletedInsert(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db, IdempotencyConfig.ofDefaults());
        Fingerprint fp = Fingerprint.of("body".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try (Connection c = StatementCounter.wrap(ds, statements).getConnection()) {
            c.setAutoCommit(false);
            long before = statements.get();
            Outcome<Void> out = tx.execute(c, key("k1"), fp, Void.class, conn -> {
                TestOrders.insert(conn, scope, "o1");
                return null;
            });
            long sent = statements.get() - before;
            c.commit();
            assertThat(out).isEqualTo(Outcome.first(null));
            // The claim's insert and the work's insert; no completion (an UPDATE) follows.
            assertThat(sent).as("the claim and the work's insert").isEqualTo(2);
        }
        IdempotencyRecord record = store.find(key("k1")).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.fingerprint()).isEqualTo(fp);

        try (Connection c = StatementCounter.wrap(ds, statements).getConnection()) {
            c.setAutoCommit(false);
            long before = statements.get();
            Outcome<Void> again = tx.execute(c, key("k1"), fp, Void.class, conn -> null);
            long sent = statements.get() - before;
            c.commit();
            assertThat(again).isEqualTo(Outcome.replayed(null));
            // MariaDB: the insert's RETURNING answers with the existing row; elsewhere a locking re-read follows.
            assertThat(sent).as("a duplicate's statements").isEqualTo(db == Db.MARIADB ? 1 : 2);
        }
        assertThat(inTransaction(ds, tx, "k1", fp, "must not run")).isEqualTo(Outcome.replayed(null));
        assertThatThrownBy(() -> inTransaction(ds, tx, "k1", Fingerprint.of(new byte[] {1}), "must not run"))
                .isInstanceOf(PayloadMismatchException.class);
        assertThat(orders("o1")).isEqualTo(1);
        assertThat(orders("must not run")).isZero();
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void aRolledBackTransactionLeavesNoRecord(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db, IdempotencyConfig.ofDefaults());
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            tx.execute(c, key("rb"), Fingerprint.none(), Void.class, conn -> {
                TestOrders.insert(conn, scope, "rb");
                return null;
            });
            tx.executeBatch(c, List.of(BatchEntry.of(key("rb1")), BatchEntry.of(key("rb2"))), Void.class, (e, p) -> {
                for (BatchEntry x : e) {
                    p.done(x.key(), null);
                }
            });
            c.rollback(); // as a crash before the commit would
        }
        assertThat(store.find(key("rb"))).isEmpty();
        assertThat(store.find(key("rb1"))).isEmpty();
        assertThat(store.find(key("rb2"))).isEmpty();
        assertThat(orders("rb")).isZero();
        assertThat(inTransaction(ds, tx, "rb", Fingerprint.none(), "rb")).isEqualTo(Outcome.first(null));
        assertThat(orders("rb")).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void aBatchCostsTheClaimStatementAndTheWorkOnlyAndReleasesWhatFailed(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db, IdempotencyConfig.ofDefaults());
        inTransaction(ds, tx, "m0", Fingerprint.none(), "m0");
        List<BatchEntry> batch = List.of(
                BatchEntry.of(key("m0")), BatchEntry.of(key("m1")), BatchEntry.of(key("m2")), BatchEntry.of(key("m3")));
        List<BatchResult<Void>> results;
        try (Connection c = StatementCounter.wrap(ds, statements).getConnection()) {
            c.setAutoCommit(false);
            long before = statements.get();
            results = tx.<Void, SQLException>executeBatch(c, batch, Void.class, (claimed, p) -> {
                for (BatchEntry e : claimed) {
                    if (e.key().key().equals("m2")) {
                        p.failed(e.key(), new IllegalStateException("the handler failed at m2"));
                    } else {
                        TestOrders.insert(c, scope, e.key().key());
                        p.done(e.key(), null);
                    }
                }
            });
            long sent = statements.get() - before;
            c.commit();
            if (db != Db.H2) { // H2 claims key by key
                // One claim statement (PostgreSQL: the insert, then a read of m0's row, which it
                // did not take), two inserts, one release of m2; no completion.
                assertThat(sent).as("claim, 2 inserts, release").isEqualTo(db == Db.POSTGRESQL ? 5 : 4);
            }
        }
        assertThat(results.get(0)).isEqualTo(new BatchResult.Replayed<Void>(batch.get(0), null));
        assertThat(results.get(1)).isEqualTo(new BatchResult.First<Void>(batch.get(1), null));
        assertThat(results.get(2)).isInstanceOf(BatchResult.Failed.class);
        assertThat(results.get(3)).isEqualTo(new BatchResult.First<Void>(batch.get(3), null));
        assertThat(store.find(key("m1")).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(store.find(key("m2"))).isEmpty(); // released: a redelivery runs it
        assertThat(inTransaction(ds, tx, "m2", Fingerprint.none(), "m2")).isEqualTo(Outcome.first(null));
        assertThat(orders("m1")).isEqualTo(1);
        assertThat(orders("m2")).isEqualTo(1);
    }

    /** The row expires at the retention, and an expired row is taken over as completed. */
    @ParameterizedTest
    @EnumSource(Db.class)
    void theRecordExpiresAtTheRetentionAndIsThenTakenOver(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(
                db, IdempotencyConfig.custom().retention(Duration.ofSeconds(1)).build());
        assertThat(inTransaction(ds, tx, "exp", Fingerprint.none(), "exp")).isEqualTo(Outcome.first(null));
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() ->
                        !inTransaction(ds, tx, "exp", Fingerprint.none(), "exp").isReplay());
        assertThat(orders("exp")).isEqualTo(2);
        assertThat(store.find(key("exp")).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
    }

    /**
     * Duplicates on a second pool wait on the uncommitted row's lock; once the first transaction
     * commits they replay, after a rollback one of them runs. A duplicate the database picks as a
     * deadlock victim (InnoDB, among the waiters after the rollback) runs its transaction again, as
     * a redelivered message does.
     */
    @ParameterizedTest
    @EnumSource(
            value = Db.class,
            names = {"POSTGRESQL", "MARIADB"})
    void concurrentDuplicatesOnASecondPoolWaitForTheFirstTransaction(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db, IdempotencyConfig.ofDefaults());
        otherPool = TestDatabases.pool(db, 8);
        JdbcTransactionalIdempotency otherTx = JdbcTransactionalIdempotency.of(TestDatabases.store(otherPool));
        // The other store detects the table before the first transaction holds any lock.
        inTransaction(otherPool, otherTx, "warm-up", Fingerprint.none(), "warm-up");
        for (boolean commit : new boolean[] {true, false}) {
            String k = commit ? "commit" : "rollback";
            int duplicates = 8;
            AtomicInteger runs = new AtomicInteger();
            ExecutorService threads = Executors.newFixedThreadPool(duplicates);
            try (Connection first = ds.getConnection()) {
                first.setAutoCommit(false);
                tx.execute(first, key(k), Fingerprint.none(), Void.class, conn -> {
                    TestOrders.insert(conn, scope, k);
                    return null;
                });
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Outcome<Void>>> outcomes = new ArrayList<>();
                for (int i = 0; i < duplicates; i++) {
                    outcomes.add(threads.submit(() -> {
                        start.await();
                        for (int attempt = 1; ; attempt++) {
                            try {
                                return inTransaction(otherPool, otherTx, k, Fingerprint.none(), k, runs);
                            } catch (StoreUnavailableException e) {
                                if (attempt >= 5
                                        || !(e.getCause() instanceof SQLException cause
                                                && JdbcAccess.isTransient(cause))) {
                                    throw e;
                                }
                            }
                        }
                    }));
                }
                start.countDown();
                await().atMost(Duration.ofSeconds(30)).until(() -> TestDatabases.lockWaits(ds, db) >= duplicates);
                assertThat(runs).hasValue(0);
                if (commit) {
                    first.commit();
                } else {
                    first.rollback();
                }
                int replays = 0;
                for (Future<Outcome<Void>> f : outcomes) {
                    replays += f.get(60, TimeUnit.SECONDS).isReplay() ? 1 : 0;
                }
                assertThat(replays).isEqualTo(commit ? duplicates : duplicates - 1);
                assertThat(runs).hasValue(commit ? 0 : 1);
                assertThat(orders(k)).isEqualTo(1);
            } finally {
                threads.shutdownNow();
            }
        }
    }
}

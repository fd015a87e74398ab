package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.BatchWork;
import io.dupguard.idempotency.FailurePolicy;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.jdbc.TestDatabases.Db;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The processed-messages table ({@link JdbcProcessedMessages}) under {@link
 * JdbcTransactionalIdempotency}: the contract that applies to a {@code Void} call in the caller's
 * transaction — one statement per new message (per poll where the dialect allows), duplicates
 * replayed, a reused key with another payload refused, a rollback leaving nothing, a failed entry
 * released, an expired row taken over, the purge — and concurrent consumers on separate pools
 * writing each message's effect exactly once.
 */
class JdbcProcessedMessagesIT {
    private HikariDataSource ds;
    private final List<HikariDataSource> others = new ArrayList<>();
    private JdbcProcessedMessages processed;
    private String scope;
    private final AtomicLong statements = new AtomicLong();

    private JdbcTransactionalIdempotency setUp(Db db) throws SQLException {
        return setUp(db, true);
    }

    private JdbcTransactionalIdempotency setUp(Db db, boolean fingerprints) throws SQLException {
        ds = TestDatabases.pool(db, 4);
        scope = "processed-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        try (Connection c = ds.getConnection()) {
            TestOrders.createTable(c);
        }
        processed = JdbcProcessedMessages.builder(ds)
                .createSchemaIfMissing(true)
                .fingerprints(fingerprints)
                .build();
        return JdbcTransactionalIdempotency.of(processed, IdempotencyConfig.ofDefaults());
    }

    @AfterEach
    void close() {
        if (ds != null) {
            ds.close();
        }
        others.forEach(HikariDataSource::close);
    }

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, k);
    }

    private int orders(String orderNo) throws SQLException {
        return TestOrders.count(ds, scope, orderNo);
    }

    private static Fingerprint fp(String body) {
        return Fingerprint.of(body.getBytes(StandardCharsets.UTF_8));
    }

    private Outcome<Void> inTransaction(JdbcTransactionalIdempotency tx, String k, Fingerprint fp, String orderNo)
            throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                Outcome<Void> out = tx.execute(c, key(k), fp, Void.class, conn -> {
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
    void aNewMessageCostsOneStatementAndItsDuplicatesReplay(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db);
        assertThat(tx.processedMessages()).isTrue();
        try (Connection c = StatementCounter.wrap(ds, statements).getConnection()) {
            c.setAutoCommit(false);
            long before = statements.get();
            Outcome<Void> out = tx.execute(c, key("k1"), fp("a"), Void.class, conn -> {
                TestOrders.insert(conn, scope, "o1");
                return null;
            });
            long sent = statements.get() - before;
            c.commit();
            assertThat(out).isEqualTo(Outcome.first(null));
            assertThat(sent)
                    .as("the processed row's insert and the work's insert")
                    .isEqualTo(2);
        }
        assertThat(processed.isProcessed(key("k1"))).isTrue();
        assertThat(inTransaction(tx, "k1", fp("a"), "must not run")).isEqualTo(Outcome.replayed(null));
        assertThatThrownBy(() -> inTransaction(tx, "k1", fp("b"), "must not run"))
                .isInstanceOf(PayloadMismatchException.class);
        assertThat(inTransaction(tx, "k1", Fingerprint.none(), "must not run")).isEqualTo(Outcome.replayed(null));
        assertThat(orders("o1")).isEqualTo(1);
        assertThat(orders("must not run")).isZero();
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void withoutFingerprintsAReusedKeyIsSkippedAsADuplicate(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db, false);
        inTransaction(tx, "k", fp("a"), "o");
        assertThat(inTransaction(tx, "k", fp("b"), "must not run")).isEqualTo(Outcome.replayed(null));
        assertThat(TestDatabases.count(
                        ds,
                        "SELECT COUNT(*) FROM " + processed.table() + " WHERE scope = ? AND fingerprint IS NULL",
                        scope))
                .isEqualTo(1);
        assertThat(orders("must not run")).isZero();
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void aRollbackLeavesNothingAndTheRetryRuns(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db);
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
        assertThat(processed.isProcessed(key("rb"))).isFalse();
        assertThat(processed.isProcessed(key("rb1"))).isFalse();
        assertThat(orders("rb")).isZero();
        assertThat(inTransaction(tx, "rb", Fingerprint.none(), "rb")).isEqualTo(Outcome.first(null));
        assertThat(orders("rb")).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void aPollOfNewMessagesIsOneStatementAndAFailedEntryIsReleased(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db);
        inTransaction(tx, "m0", fp("m0"), "m0");
        List<BatchEntry> fresh = IntStream.range(0, 50)
                .mapToObj(i -> new BatchEntry(key("n" + i), fp("n" + i)))
                .toList();
        Counted first = committed(tx, fresh, (c, e, p) -> p.done(e.key(), null));
        assertThat(first.results()).allMatch(r -> r instanceof BatchResult.First<Void>);
        if (db != Db.H2) { // H2 claims key by key
            assertThat(first.statements())
                    .as("one claim statement for a poll of new messages")
                    .isEqualTo(1);
        }
        List<BatchEntry> mixed = List.of(
                new BatchEntry(key("m0"), fp("m0")),
                new BatchEntry(key("m1"), fp("m1")),
                new BatchEntry(key("m2"), fp("m2")),
                new BatchEntry(key("n3"), fp("n3")));
        Counted counted = committed(tx, mixed, (c, e, p) -> {
            if (e.key().key().equals("m2")) {
                p.failed(e.key(), new IllegalStateException("the handler failed at m2"));
            } else {
                TestOrders.insert(c, scope, e.key().key());
                p.done(e.key(), null);
            }
        });
        List<BatchResult<Void>> results = counted.results();
        if (db != Db.H2) {
            // One insert answering every key (PostgreSQL: the duplicates by leaving them out), the effect, the
            // release of m2: nothing read back.
            assertThat(counted.statements()).isEqualTo(3);
        }
        assertThat(results.get(0)).isEqualTo(new BatchResult.Replayed<Void>(mixed.get(0), null));
        assertThat(results.get(1)).isEqualTo(new BatchResult.First<Void>(mixed.get(1), null));
        assertThat(results.get(2)).isInstanceOf(BatchResult.Failed.class);
        assertThat(results.get(3)).isEqualTo(new BatchResult.Replayed<Void>(mixed.get(3), null));
        assertThat(processed.isProcessed(key("m1"))).isTrue();
        assertThat(processed.isProcessed(key("m2")))
                .as("released with its failure")
                .isFalse();
        assertThat(orders("m1")).isEqualTo(1);
        assertThat(orders("m0")).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void anExpiredMessageIsTakenOverAndRunsAgainAndThePurgeDeletesOnlyExpiredRows(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db);
        for (int i = 0; i < 30; i++) {
            inTransaction(tx, "e" + i, fp("e" + i), "e" + i);
        }
        // Time passes for the even ones: their expiry is moved into the past.
        expire(IntStream.range(0, 15).mapToObj(i -> "e" + (2 * i)).toList());
        assertThat(processed.isProcessed(key("e0"))).isFalse();
        assertThat(inTransaction(tx, "e0", fp("other body"), "e0 again")).isEqualTo(Outcome.first(null));
        assertThat(processed.isProcessed(key("e0"))).isTrue();
        assertThat(orders("e0 again")).isEqualTo(1);

        long purged = 0;
        int batch;
        do { // small batches: the keyset walk (MariaDB, H2) goes on from where each ended
            batch = processed.purgeExpired(3);
            purged += batch;
        } while (batch == 3);
        assertThat(purged).as("every expired row but the one taken over").isGreaterThanOrEqualTo(14);
        for (int i = 0; i < 30; i++) {
            assertThat(processed.isProcessed(key("e" + i))).as("e" + i).isEqualTo(i == 0 || i % 2 == 1);
        }
        assertThat(TestDatabases.count(ds, "SELECT COUNT(*) FROM " + processed.table() + " WHERE scope = ?", scope))
                .isEqualTo(16);
    }

    /**
     * One poll meets every kind of row: new, a live duplicate, a live row with another payload, an
     * expired row with the same and with another payload. The duplicate is replayed, the other
     * payload refused, the expired rows taken over and run again — in one claim statement on
     * PostgreSQL and MariaDB, with nothing read back.
     */
    @ParameterizedTest
    @EnumSource(Db.class)
    void aPollAnswersNewLiveChangedAndExpiredRowsInOneStatement(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db);
        for (String k : List.of("live", "changed", "expired-same", "expired-other")) {
            inTransaction(tx, k, fp(k), k);
        }
        expire(List.of("expired-same", "expired-other"));
        List<BatchEntry> poll = List.of(
                new BatchEntry(key("new"), fp("new")),
                new BatchEntry(key("live"), fp("live")),
                new BatchEntry(key("changed"), fp("another body")),
                new BatchEntry(key("expired-same"), fp("expired-same")),
                new BatchEntry(key("expired-other"), fp("another body")));
        List<String> ran = new ArrayList<>();
        Counted counted = committed(tx, poll, (c, e, p) -> {
            ran.add(e.key().key());
            TestOrders.insert(c, scope, e.key().key() + " again");
            p.done(e.key(), null);
        });
        List<BatchResult<Void>> results = counted.results();
        assertThat(ran).containsExactlyInAnyOrder("new", "expired-same", "expired-other");
        if (db != Db.H2) {
            assertThat(counted.statements())
                    .as("the claim and the three effects")
                    .isEqualTo(4);
        }
        assertThat(results.get(0)).isEqualTo(new BatchResult.First<Void>(poll.get(0), null));
        assertThat(results.get(1)).isEqualTo(new BatchResult.Replayed<Void>(poll.get(1), null));
        assertThat(results.get(2)).isEqualTo(new BatchResult.Mismatch<Void>(poll.get(2)));
        assertThat(results.get(3)).isEqualTo(new BatchResult.First<Void>(poll.get(3), null));
        assertThat(results.get(4)).isEqualTo(new BatchResult.First<Void>(poll.get(4), null));
        for (String k : List.of("new", "expired-same", "expired-other")) {
            assertThat(orders(k + " again")).as(k).isEqualTo(1);
            assertThat(processed.isProcessed(key(k))).as(k).isTrue();
        }
        assertThat(orders("live again") + orders("changed again")).isZero();
        // The taken-over row carries the new payload's fingerprint: the new body replays, the old one is refused.
        assertThat(inTransaction(tx, "expired-other", fp("another body"), "must not run"))
                .isEqualTo(Outcome.replayed(null));
        assertThatThrownBy(() -> inTransaction(tx, "expired-other", fp("expired-other"), "must not run"))
                .isInstanceOf(PayloadMismatchException.class);
        assertThat(inTransaction(tx, "changed", fp("changed"), "must not run")).isEqualTo(Outcome.replayed(null));
        assertThat(orders("must not run")).isZero();
    }

    /**
     * A poll over two scopes, with the same id in both and a duplicate in one, is answered key by
     * key in one claim statement on PostgreSQL and MariaDB (a listener's poll, one scope, binds it
     * once; this one binds a scope per key).
     */
    @ParameterizedTest
    @EnumSource(Db.class)
    void aPollOverTwoScopesIsAnsweredKeyByKey(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db);
        inTransaction(tx, "seen", fp("seen"), "seen");
        IdempotencyKey other = IdempotencyKey.of(scope + "-b", "seen");
        List<BatchEntry> poll = List.of(
                new BatchEntry(key("seen"), fp("seen")),
                new BatchEntry(other, fp("seen")),
                new BatchEntry(IdempotencyKey.of(scope + "-b", "z\uD83D\uDE00"), fp("emoji")),
                new BatchEntry(IdempotencyKey.of(scope + "-b", "z\uFFFD"), fp("replacement")));
        List<IdempotencyKey> ran = new ArrayList<>();
        Counted counted = committed(tx, poll, (c, e, p) -> {
            ran.add(e.key());
            p.done(e.key(), null);
        });
        assertThat(ran)
                .containsExactlyInAnyOrder(other, poll.get(2).key(), poll.get(3).key());
        if (db != Db.H2) {
            assertThat(counted.statements()).as("the claim").isEqualTo(1);
        }
        assertThat(counted.results().get(0)).isEqualTo(new BatchResult.Replayed<Void>(poll.get(0), null));
        for (int i = 1; i < 4; i++) {
            assertThat(counted.results().get(i)).isEqualTo(new BatchResult.First<Void>(poll.get(i), null));
            assertThat(processed.isProcessed(poll.get(i).key())).isTrue();
        }
    }

    /**
     * A poll whose connection is terminated by the server after its claims and effects, before its
     * commit (a backend killed, a failover): nothing of it remains, and the redelivered poll runs
     * every message once.
     */
    @ParameterizedTest
    @EnumSource(
            value = Db.class,
            names = {"POSTGRESQL", "MARIADB"})
    void aPollWhoseConnectionIsKilledBeforeItsCommitLeavesNothingAndItsRedeliveryRunsOnce(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db);
        List<BatchEntry> poll = IntStream.range(0, 20)
                .mapToObj(i -> new BatchEntry(key("k" + i), fp("k" + i)))
                .toList();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            long backend;
            try (Statement st = c.createStatement();
                    var rs = st.executeQuery(
                            db == Db.POSTGRESQL ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()")) {
                rs.next();
                backend = rs.getLong(1);
            }
            tx.<Void, SQLException>executeBatch(c, poll, Void.class, (claimed, p) -> {
                for (BatchEntry e : claimed) {
                    TestOrders.insert(c, scope, e.key().key());
                    p.done(e.key(), null);
                }
            });
            try (Connection killer = ds.getConnection();
                    Statement st = killer.createStatement()) {
                st.execute(
                        db == Db.POSTGRESQL
                                ? "SELECT pg_terminate_backend(" + backend + ")"
                                : "KILL CONNECTION " + backend);
            }
            assertThatThrownBy(c::commit).isInstanceOf(SQLException.class);
        }
        for (BatchEntry e : poll) {
            assertThat(processed.isProcessed(e.key())).as(e.key().key()).isFalse();
        }
        assertThat(TestDatabases.count(ds, "SELECT COUNT(*) FROM dupguard_test_orders WHERE scope = ?", scope))
                .isZero();
        assertThat(poll(ds, tx, poll))
                .as("the redelivered poll runs every message")
                .isEqualTo(20);
        assertThat(poll(ds, tx, poll)).as("and a second redelivery none").isZero();
        assertThat(TestDatabases.count(ds, "SELECT COUNT(*) FROM dupguard_test_orders WHERE scope = ?", scope))
                .isEqualTo(20);
    }

    /** A database that cannot be reached fails the claim and the read; it never reads as "not processed". */
    @ParameterizedTest
    @EnumSource(
            value = Db.class,
            names = {"POSTGRESQL", "MARIADB"})
    void anUnreachableDatabaseIsAnOutageNotANewMessage(Db db) throws Exception {
        setUp(db);
        HikariDataSource down = TestDatabases.unreachable(db);
        others.add(down);
        JdbcProcessedMessages unreachable = JdbcProcessedMessages.create(down);
        JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(unreachable);
        assertThatThrownBy(() -> unreachable.isProcessed(key("k")))
                .isInstanceOf(io.dupguard.StoreUnavailableException.class);
        assertThatThrownBy(() -> unreachable.purgeExpired(10))
                .isInstanceOf(io.dupguard.StoreUnavailableException.class);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            // the executor prepares the table on its own pool before the caller's transaction: that fails
            assertThatThrownBy(() -> tx.execute(c, key("k"), Fingerprint.none(), Void.class, conn -> {
                        throw new AssertionError("ran without its store");
                    }))
                    .isInstanceOf(io.dupguard.StoreUnavailableException.class);
            c.rollback();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Db.class,
            names = {"POSTGRESQL", "MARIADB"})
    void concurrentConsumersOnSeparatePoolsWriteEachMessageOnce(Db db) throws Exception {
        setUp(db);
        int consumers = 6;
        int messages = 200;
        List<JdbcTransactionalIdempotency> txs = new ArrayList<>();
        List<HikariDataSource> pools = new ArrayList<>();
        for (int i = 0; i < consumers; i++) {
            HikariDataSource pool = TestDatabases.pool(db, 2);
            others.add(pool);
            pools.add(pool);
            txs.add(JdbcTransactionalIdempotency.of(
                    JdbcProcessedMessages.create(pool), IdempotencyConfig.ofDefaults()));
        }
        ExecutorService threads = Executors.newFixedThreadPool(consumers);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> runs = new ArrayList<>();
            for (int i = 0; i < consumers; i++) {
                int n = i;
                runs.add(threads.submit(() -> {
                    start.await();
                    int ran = 0;
                    // Every consumer sees every message, in polls of 20, each in its own order.
                    List<Integer> order =
                            new ArrayList<>(IntStream.range(0, messages).boxed().toList());
                    java.util.Collections.shuffle(order, new java.util.Random(n));
                    for (int from = 0; from < messages; from += 20) {
                        // Not sorted here: the table takes a poll's keys in one order whatever the poll's.
                        List<BatchEntry> poll = order.subList(from, from + 20).stream()
                                .map(m -> new BatchEntry(key("c" + m), fp("c" + m)))
                                .toList();
                        ran += poll(pools.get(n), txs.get(n), poll);
                    }
                    return ran;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> f : runs) {
                total += f.get(120, TimeUnit.SECONDS);
            }
            assertThat(total).as("effects written across consumers").isEqualTo(messages);
        } finally {
            threads.shutdownNow();
        }
        assertThat(TestDatabases.count(ds, "SELECT COUNT(*) FROM dupguard_test_orders WHERE scope = ?", scope))
                .isEqualTo(messages);
        assertThat(TestDatabases.count(
                        ds, "SELECT COUNT(DISTINCT order_no) FROM dupguard_test_orders WHERE scope = ?", scope))
                .isEqualTo(messages);
    }

    private int poll(HikariDataSource pool, JdbcTransactionalIdempotency tx, List<BatchEntry> poll)
            throws SQLException {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                int[] ran = {0};
                tx.<Void, SQLException>executeBatch(c, poll, Void.class, (claimed, p) -> {
                    for (BatchEntry e : claimed) {
                        TestOrders.insert(c, scope, e.key().key());
                        ran[0]++;
                        p.done(e.key(), null);
                    }
                });
                c.commit();
                return ran[0];
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** MySQL's statements (no {@code RETURNING}: INSERT IGNORE key by key), run on MariaDB reported as MySQL 8. */
    @Test
    void mysqlStatementsClaimKeyByKeyWithTheSameOutcomes() throws Exception {
        setUp(Db.MARIADB);
        JdbcProcessedMessages mysql = JdbcProcessedMessages.builder(MySqlStatementsOnMariaDbIT.asMySql(ds))
                .createSchemaIfMissing(true)
                .build();
        JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(mysql);
        inTransaction(tx, "my0", fp("my0"), "my0");
        List<BatchEntry> poll = List.of(new BatchEntry(key("my0"), fp("my0")), new BatchEntry(key("my1"), fp("my1")));
        List<BatchResult<Void>> results;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            results = tx.<Void, SQLException>executeBatch(c, poll, Void.class, (claimed, p) -> {
                for (BatchEntry e : claimed) {
                    TestOrders.insert(c, scope, e.key().key());
                    p.done(e.key(), null);
                }
            });
            c.commit();
        }
        assertThat(results.get(0)).isEqualTo(new BatchResult.Replayed<Void>(poll.get(0), null));
        assertThat(results.get(1)).isEqualTo(new BatchResult.First<Void>(poll.get(1), null));
        assertThatThrownBy(() -> inTransaction(tx, "my1", fp("other"), "must not run"))
                .isInstanceOf(PayloadMismatchException.class);
        assertThat(orders("my0")).isEqualTo(1);
        assertThat(orders("my1")).isEqualTo(1);
        assertThat(orders("must not run")).isZero();
    }

    @Test
    void whatTheTableCannotRecordIsRefusedWithAClearError() throws Exception {
        JdbcTransactionalIdempotency tx = setUp(Db.H2);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> tx.execute(c, key("r"), Fingerprint.none(), String.class, conn -> "result"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Void results only")
                    .hasMessageContaining("java.lang.String");
            c.rollback();
        }
        assertThatThrownBy(() -> JdbcTransactionalIdempotency.of(
                        processed,
                        IdempotencyConfig.custom()
                                .failurePolicy(FailurePolicy.storeFinal(IllegalStateException.class))
                                .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stores no failures");
        assertThat(processed.isProcessed(key("r"))).isFalse();
    }

    /**
     * The poll's read of the rows it did not insert goes through the primary key even when the
     * pooled connection planned its statements on an empty, analyzed table that then grew.
     */
    @Test
    void onPostgresqlAGrownTableIsNeverScannedByAConnectionThatSawItEmpty() throws Exception {
        String table = "dupguard_test_processed_plan";
        ds = TestDatabases.pool(Db.POSTGRESQL, 1);
        scope = "plan";
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
        }
        processed = JdbcProcessedMessages.builder(ds)
                .tableName(table)
                .createSchemaIfMissing(true)
                .build();
        JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(processed);
        try {
            processed.ensureReady();
            try (Connection c = ds.getConnection();
                    Statement st = c.createStatement()) {
                st.execute("ANALYZE " + table);
            }
            // The one pooled connection runs polls (duplicates included) many times on the empty table.
            for (int round = 0; round < 8; round++) {
                List<BatchEntry> poll = IntStream.range(0, 10)
                        .mapToObj(i -> BatchEntry.of(key("p" + (i % 5))))
                        .distinct()
                        .toList();
                claimAndRollBack(tx, poll);
            }
            try (Connection c = ds.getConnection();
                    Statement st = c.createStatement()) {
                st.execute("INSERT INTO " + table + " SELECT 'grown', 'g' || i, NULL, now() + interval '1 day'"
                        + " FROM generate_series(1, 20000) i");
            }
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                long before = seqScans(c, table);
                for (int r = 0; r < 5; r++) {
                    int round = r;
                    List<BatchEntry> poll = IntStream.range(0, 20)
                            .mapToObj(i -> BatchEntry.of(IdempotencyKey.of("grown", "g" + (i * 7 + round + 1))))
                            .toList();
                    tx.<Void, SQLException>executeBatch(c, poll, Void.class, (claimed, p) -> assertThat(claimed)
                            .isEmpty());
                    tx.execute(
                            c,
                            IdempotencyKey.of("grown", "g" + (round + 100)),
                            Fingerprint.none(),
                            Void.class,
                            conn -> {
                                throw new AssertionError("a processed message ran");
                            });
                }
                assertThat(seqScans(c, table) - before)
                        .as("sequential scans of the grown table")
                        .isZero();
                c.rollback();
            }
        } finally {
            try (Connection c = ds.getConnection();
                    Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    /** Moves the rows of {@code ids} (this test's scope) two days into the past: time passes for them. */
    private void expire(List<String> ids) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE " + processed.table()
                        + " SET expires_at = expires_at - INTERVAL '2' DAY WHERE scope = ? AND msg_id = ?")) {
            for (String id : ids) {
                ps.setString(1, scope);
                ps.setString(2, id);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        for (String id : ids) {
            assertThat(processed.isProcessed(key(id))).as(id + " expired").isFalse();
        }
    }

    /** A handler of one claimed entry of a poll, given the poll's connection. */
    private interface EntryWork {
        void run(Connection c, BatchEntry entry, BatchWork.Progress<Void> progress) throws SQLException;
    }

    /** A committed poll's results and the statements it sent before its commit. */
    private record Counted(List<BatchResult<Void>> results, long statements) {}

    /** Runs {@code poll} in one transaction on a counted connection, {@code work} per claimed entry, and commits. */
    private Counted committed(JdbcTransactionalIdempotency tx, List<BatchEntry> poll, EntryWork work)
            throws SQLException {
        try (Connection c = StatementCounter.wrap(ds, statements).getConnection()) {
            c.setAutoCommit(false);
            long before = statements.get();
            List<BatchResult<Void>> results = tx.<Void, SQLException>executeBatch(c, poll, Void.class, (claimed, p) -> {
                for (BatchEntry e : claimed) {
                    work.run(c, e, p);
                }
            });
            long sent = statements.get() - before;
            c.commit();
            return new Counted(results, sent);
        }
    }

    private void claimAndRollBack(JdbcTransactionalIdempotency tx, List<BatchEntry> poll) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            tx.<Void, SQLException>executeBatch(
                    c, poll, Void.class, (claimed, p) -> claimed.forEach(e -> p.done(e.key(), null)));
            tx.execute(c, key("single"), Fingerprint.none(), Void.class, conn -> null);
            c.commit();
            try (Statement st = c.createStatement()) {
                st.execute("DELETE FROM dupguard_test_processed_plan");
            }
            c.commit();
        }
    }

    /** The sequential scans of {@code table} counted so far, this transaction's included. */
    private static long seqScans(Connection c, String table) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT COALESCE(seq_scan, 0) FROM pg_stat_xact_user_tables WHERE relname = ?")) {
            ps.setString(1, table);
            try (var rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }
}

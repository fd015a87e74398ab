package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.FailurePolicy;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.idempotency.ReplayedFailureException;
import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.jdbc.TestDatabases.Servers;
import io.dupguard.test.ExpectedWarnings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Claim, the caller's SQL and completion commit or roll back as one transaction. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcTransactionalIdempotencyIT {
    static final String CREATE_UNIQUE_ORDERS = "CREATE TABLE IF NOT EXISTS dupguard_test_unique_orders (scope"
            + " VARCHAR(64) NOT NULL, order_no VARCHAR(100) NOT NULL, PRIMARY KEY (scope, order_no))";

    private Servers servers;
    private DataSource ds;
    private String scope;

    /** Where the machines connect: every single server. */
    Stream<Servers> servers() {
        return Stream.of(Db.values()).map(Servers::one);
    }

    /** The servers that speak {@code db}. */
    private Stream<Servers> speaking(Db db) {
        return servers().filter(s -> s.db() == db);
    }

    Stream<Servers> mariaDb() {
        return speaking(Db.MARIADB);
    }

    Stream<Servers> postgres() {
        return speaking(Db.POSTGRESQL);
    }

    /** Servers where one transaction waits on another's row lock (not H2's table locks). */
    Stream<Servers> rowLocking() {
        return servers().filter(s -> s.db() != Db.H2);
    }

    private JdbcTransactionalIdempotency setUp(Servers servers) throws SQLException {
        this.servers = servers;
        ds = servers.machine(0, 20);
        scope = "tx-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        try (Connection c = ds.getConnection()) {
            TestOrders.createTable(c);
        }
        return JdbcTransactionalIdempotency.of(TestDatabases.store(ds));
    }

    @AfterEach
    void close() {
        TestDatabases.close(ds);
    }

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, k);
    }

    private int insertOrder(Connection c, String orderNo) throws SQLException {
        return TestOrders.insert(c, scope, orderNo);
    }

    private int orders(String orderNo) throws SQLException {
        return TestOrders.count(ds, scope, orderNo);
    }

    @ParameterizedTest
    @MethodSource("servers")
    void commitKeepsTheRecordAndTheCallersRow(Servers servers) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(servers);

        Outcome<Integer> first =
                tx.executeInTransaction(key("o-1"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "o-1"));
        Outcome<Integer> again =
                tx.executeInTransaction(key("o-1"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "o-1"));

        assertThat(first).isEqualTo(Outcome.first(1));
        assertThat(again).isEqualTo(Outcome.replayed(1));
        assertThat(orders("o-1")).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("servers")
    void rollbackAfterTheCallersInsertLeavesNothing(Servers servers) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(servers);
        JdbcIdempotencyStore store = TestDatabases.store(ds);

        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            tx.execute(c, key("o-2"), Fingerprint.none(), Integer.class, conn -> insertOrder(conn, "o-2"));
            c.rollback(); // e.g. a later step of the caller's transaction failed
        }

        assertThat(orders("o-2")).isZero();
        assertThat(store.find(key("o-2"))).isEmpty();
        assertThat(tx.executeInTransaction(key("o-2"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "o-2")))
                .isEqualTo(Outcome.first(1));
        assertThat(orders("o-2")).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("servers")
    void workFailureRollsBackTheClaimWithEverythingElse(Servers servers) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(servers);

        assertThatThrownBy(() -> tx.executeInTransaction(key("o-3"), Fingerprint.none(), Integer.class, c -> {
                    insertOrder(c, "o-3");
                    throw new IllegalStateException("stock check failed");
                }))
                .isInstanceOf(IllegalStateException.class);

        assertThat(orders("o-3")).isZero();
        assertThat(TestDatabases.store(ds).find(key("o-3"))).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("servers")
    void callersSqlExceptionPropagatesUnwrapped(Servers servers) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(servers);

        assertThatThrownBy(() -> tx.executeInTransaction(key("o-4"), Fingerprint.none(), Integer.class, c -> {
                    try (Statement st = c.createStatement()) {
                        return st.executeUpdate("INSERT INTO no_such_table VALUES (1)");
                    }
                }))
                .isInstanceOf(SQLException.class);
    }

    @ParameterizedTest
    @MethodSource("servers")
    void refusesAnAutocommitConnection(Servers servers) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(servers);
        try (Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> tx.execute(c, key("o-5"), Fingerprint.none(), Integer.class, conn -> 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("autocommit");
        }
    }

    @ParameterizedTest
    @MethodSource("servers")
    void theWorkRunsInsideAnOpenTransaction(Servers servers) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(servers);

        Outcome<Integer> out = tx.executeInTransaction(key("o-vis"), Fingerprint.none(), Integer.class, c -> {
            insertOrder(c, "o-vis");
            return orders("o-vis"); // another pooled connection: must not see the uncommitted row
        });

        assertThat(out).isEqualTo(Outcome.first(0));
        assertThat(orders("o-vis")).isEqualTo(1);
    }

    /** A recorded key is answered by one read: no transaction begun, committed or rolled back. */
    @ParameterizedTest
    @MethodSource("servers")
    void aDuplicateTakesOneStatementAndNoTransaction(Servers servers) throws Exception {
        setUp(servers);
        JdbcIdempotencyStore warm = TestDatabases.store(ds);
        JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(warm);
        tx.executeInTransaction(key("o-dup"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "o-dup"));
        List<String> calls = new ArrayList<>();
        JdbcTransactionalIdempotency recorded = JdbcTransactionalIdempotency.of(
                JdbcIdempotencyStore.builder(CallRecorder.wrap(ds, calls)).build());
        recorded.executeInTransaction(key("warm-up"), Fingerprint.none(), Integer.class, c -> 1); // detection
        calls.clear();

        Outcome<Integer> again = recorded.executeInTransaction(
                key("o-dup"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "o-dup"));

        assertThat(again).isEqualTo(Outcome.replayed(1));
        assertThat(calls)
                .filteredOn(m -> m.startsWith("prepareStatement") || m.startsWith("createStatement"))
                .hasSize(1);
        assertThat(calls).noneMatch(m -> m.startsWith("setAutoCommit") || m.equals("commit") || m.equals("rollback"));
        assertThat(orders("o-dup")).isEqualTo(1);
    }

    /** MySQL/MariaDB: START TRANSACTION … COMMIT, never a switch of the session's autocommit mode. */
    @ParameterizedTest
    @MethodSource("mariaDb")
    void mariaDbBeginsWithStartTransactionNotSetAutoCommit(Servers servers) throws Exception {
        setUp(servers);
        List<String> calls = new ArrayList<>();
        JdbcTransactionalIdempotency recorded =
                JdbcTransactionalIdempotency.of(JdbcIdempotencyStore.builder(CallRecorder.wrap(ds, calls))
                        .createSchemaIfMissing(true)
                        .build());
        recorded.executeInTransaction(key("warm-up"), Fingerprint.none(), Integer.class, c -> 1);
        calls.clear();

        recorded.executeInTransaction(key("o-st"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "o-st"));
        assertThatThrownBy(() -> recorded.executeInTransaction(key("o-st2"), Fingerprint.none(), Integer.class, c -> {
                    insertOrder(c, "o-st2");
                    throw new IllegalStateException("declined");
                }))
                .isInstanceOf(IllegalStateException.class);

        assertThat(calls).noneMatch(m -> m.startsWith("setAutoCommit"));
        assertThat(calls).contains("execute START TRANSACTION", "execute COMMIT", "execute ROLLBACK");
        assertThat(orders("o-st")).isEqualTo(1);
        assertThat(orders("o-st2")).isZero();
        try (Connection c = ds.getConnection()) {
            assertThat(c.getAutoCommit()).isTrue();
        }
    }

    /** An unreachable database is a store error before any work runs, never "not a duplicate". */
    @ParameterizedTest
    @MethodSource("servers")
    @ExpectedWarnings("HikariCP warns when it closes a pool that never reached its database")
    void anUnreachableDatabaseFailsBeforeTheWorkRuns(Servers servers) {
        ds = servers.machine(0, 1); // closed by @AfterEach
        scope = "tx-down";
        AtomicInteger ran = new AtomicInteger();
        try (HikariDataSource down = TestDatabases.unreachable(servers.db())) {
            JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(JdbcIdempotencyStore.create(down));

            assertThatThrownBy(() -> tx.executeInTransaction(
                            key("o-down"), Fingerprint.none(), Integer.class, c -> ran.incrementAndGet()))
                    .isInstanceOf(StoreUnavailableException.class);
            assertThat(ran).hasValue(0);
        }
    }

    /** A pool that hands out connections with autocommit off: the read already runs in a transaction. */
    @ParameterizedTest
    @MethodSource("servers")
    void aPoolWithAutocommitOffStillCommitsAndRollsBack(Servers servers) throws Exception {
        setUp(servers).executeInTransaction(key("init"), Fingerprint.none(), Integer.class, c -> 1); // schema
        DataSource manual = servers.machine(1, 4, false);
        try {
            JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(TestDatabases.store(manual));

            Outcome<Integer> first =
                    tx.executeInTransaction(key("m-1"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "m-1"));
            Outcome<Integer> again =
                    tx.executeInTransaction(key("m-1"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "m-1"));
            assertThatThrownBy(() -> tx.executeInTransaction(key("m-2"), Fingerprint.none(), Integer.class, c -> {
                        insertOrder(c, "m-2");
                        throw new IllegalStateException("declined");
                    }))
                    .isInstanceOf(IllegalStateException.class);

            assertThat(first).isEqualTo(Outcome.first(1));
            assertThat(again).isEqualTo(Outcome.replayed(1));
            assertThat(orders("m-1")).isEqualTo(1);
            assertThat(orders("m-2")).isZero();
        } finally {
            TestDatabases.close(manual);
        }
    }

    @ParameterizedTest
    @MethodSource("servers")
    void sixteenConcurrentTransactionsCreateOneOrder(Servers servers) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(servers);
        int firsts = sixteenAtOnce(() -> tx.executeInTransaction(
                key("hot"), Fingerprint.ofString("same"), Integer.class, c -> insertOrder(c, "hot")));

        assertThat(firsts).isEqualTo(1);
        assertThat(orders("hot")).isEqualTo(1);
    }

    /** Runs {@code call} on 16 threads released at once; every one must return 1. Returns how many ran first. */
    private static int sixteenAtOnce(java.util.concurrent.Callable<Outcome<Integer>> call) throws Exception {
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Outcome<Integer>>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    return call.call();
                }));
            }
            start.countDown();
            int firsts = 0;
            for (Future<Outcome<Integer>> f : results) {
                Outcome<Integer> o = f.get(60, TimeUnit.SECONDS);
                assertThat(o.value()).isEqualTo(1);
                firsts += o.isReplay() ? 0 : 1;
            }
            return firsts;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The order number is unique in the caller's own table, so a duplicate's work fails on the
     * winner's row instead of finishing: it must still replay the winner's result, not throw.
     */
    @ParameterizedTest
    @MethodSource("servers")
    void concurrentDuplicatesFailingOnTheCallersUniqueKeyReplayTheWinner(Servers servers) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(servers);
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute(CREATE_UNIQUE_ORDERS);
        }
        int firsts = sixteenAtOnce(
                () -> tx.executeInTransaction(key("uniq"), Fingerprint.ofString("same"), Integer.class, c -> {
                    try (PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO dupguard_test_unique_orders (scope, order_no) VALUES (?, 'uniq')")) {
                        ps.setString(1, scope);
                        return ps.executeUpdate();
                    }
                }));

        assertThat(firsts).isEqualTo(1);
        try (Connection c = ds.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT COUNT(*) FROM dupguard_test_unique_orders WHERE scope = ?")) {
            ps.setString(1, scope);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(1);
            }
        }
    }

    /**
     * Two calls both find the key unrecorded and run their work; the one that records second is
     * rolled back (its order disappears) and replays the first one's result.
     */
    @ParameterizedTest
    @MethodSource("servers")
    void theCallThatRecordsSecondIsUndoneAndReplaysTheFirst(Servers servers) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(servers);
        CountDownLatch slowIsWorking = new CountDownLatch(1);
        CountDownLatch fastCommitted = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Outcome<String>> slow = pool.submit(
                    () -> tx.executeInTransaction(key("race"), Fingerprint.ofString("same"), String.class, c -> {
                        insertOrder(c, "race");
                        if (slowIsWorking.getCount() > 0) {
                            slowIsWorking.countDown();
                            assertThat(fastCommitted.await(30, TimeUnit.SECONDS))
                                    .isTrue();
                            return "slow";
                        }
                        return "slow, second attempt"; // never: the second attempt replays
                    }));
            assertThat(slowIsWorking.await(30, TimeUnit.SECONDS)).isTrue();
            Outcome<String> fast =
                    tx.executeInTransaction(key("race"), Fingerprint.ofString("same"), String.class, c -> {
                        insertOrder(c, "race");
                        return "fast";
                    });
            fastCommitted.countDown();

            assertThat(fast).isEqualTo(Outcome.first("fast"));
            assertThat(slow.get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.replayed("fast"));
            assertThat(orders("race")).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Sixteen callers on four pools (four machines) call {@code executeInTransaction} with one key
     * at once; the work takes 20 ms. Returns {callback runs, FIRST outcomes, committed orders}.
     */
    private int[] sameKeyOnFourMachines(Servers servers, JdbcTransactionalIdempotency.ClaimMode mode, String k)
            throws Exception {
        List<DataSource> machines = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(16);
        AtomicInteger runs = new AtomicInteger();
        try {
            List<JdbcTransactionalIdempotency> txs = new ArrayList<>();
            for (int m = 0; m < 4; m++) {
                DataSource machine = servers.machine(m, 4);
                machines.add(machine);
                txs.add(JdbcTransactionalIdempotency.of(
                        TestDatabases.store(machine), IdempotencyConfig.ofDefaults(), mode));
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Outcome<Integer>>> calls = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                JdbcTransactionalIdempotency tx = txs.get(i % 4);
                calls.add(threads.submit(() -> {
                    start.await();
                    return tx.executeInTransaction(key(k), Fingerprint.ofString("same"), Integer.class, c -> {
                        runs.incrementAndGet();
                        int n = insertOrder(c, k);
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // the work's duration
                        return n;
                    });
                }));
            }
            start.countDown();
            int firsts = 0;
            for (Future<Outcome<Integer>> call : calls) {
                Outcome<Integer> o = call.get(60, TimeUnit.SECONDS);
                assertThat(o.value()).isEqualTo(1);
                firsts += o.isReplay() ? 0 : 1;
            }
            return new int[] {runs.get(), firsts, orders(k)};
        } finally {
            threads.shutdownNow();
            machines.forEach(TestDatabases::close);
        }
    }

    /** Issue 11.10: with the claim first, duplicates wait on the key and never run the callback. */
    @ParameterizedTest
    @MethodSource("servers")
    void claimFirstRunsTheCallbackOnceForSixteenConcurrentDuplicatesOnFourMachines(Servers servers) throws Exception {
        setUp(servers);
        int[] r = sameKeyOnFourMachines(servers, JdbcTransactionalIdempotency.ClaimMode.CLAIM_FIRST, "cf");

        assertThat(r[0]).as("callback runs").isEqualTo(1);
        assertThat(r[1]).as("FIRST outcomes").isEqualTo(1);
        assertThat(r[2]).as("committed orders").isEqualTo(1);
    }

    /**
     * The optimistic mode's documented behaviour: one committed order and one FIRST outcome, while
     * the callback may run in several of the concurrent transactions (those are rolled back).
     */
    @ParameterizedTest
    @MethodSource("servers")
    void optimisticCommitsOneOrderForSixteenConcurrentDuplicatesThoughTheCallbackMayRunMore(Servers servers)
            throws Exception {
        setUp(servers);
        int[] r = sameKeyOnFourMachines(servers, JdbcTransactionalIdempotency.ClaimMode.OPTIMISTIC, "opt");

        assertThat(r[0]).as("callback runs").isBetween(1, 16);
        assertThat(r[1]).as("FIRST outcomes").isEqualTo(1);
        assertThat(r[2]).as("committed orders").isEqualTo(1);
    }

    /** A failure that retrying cannot cure, stored for replay by {@link FailurePolicy#storeFinal}. */
    static final class PaymentDeclined extends Exception {
        private static final long serialVersionUID = 1L;

        PaymentDeclined(String message) {
            super(message);
        }
    }

    private JdbcTransactionalIdempotency storingFinalFailures() {
        return storingFinalFailures(JdbcTransactionalIdempotency.ClaimMode.OPTIMISTIC);
    }

    private JdbcTransactionalIdempotency storingFinalFailures(JdbcTransactionalIdempotency.ClaimMode mode) {
        return JdbcTransactionalIdempotency.of(
                TestDatabases.store(ds),
                IdempotencyConfig.custom()
                        .failurePolicy(FailurePolicy.storeFinal(PaymentDeclined.class))
                        .build(),
                mode);
    }

    /** Issue 11.3 with the claim first: the claim row is rolled back with the work, the failure stays. */
    @ParameterizedTest
    @MethodSource("servers")
    void aFinalFailureWithTheClaimFirstIsRecordedAndReplayedNotRunAgain(Servers servers) throws Exception {
        setUp(servers);
        JdbcTransactionalIdempotency tx = storingFinalFailures(JdbcTransactionalIdempotency.ClaimMode.CLAIM_FIRST);
        AtomicInteger ran = new AtomicInteger();
        SqlWork<Integer, Exception> declined = c -> {
            ran.incrementAndGet();
            insertOrder(c, "pay-cf");
            throw new PaymentDeclined("card declined");
        };

        assertThatThrownBy(() -> tx.executeInTransaction(key("pay-cf"), Fingerprint.none(), Integer.class, declined))
                .isInstanceOf(PaymentDeclined.class);
        assertThatThrownBy(() -> tx.executeInTransaction(key("pay-cf"), Fingerprint.none(), Integer.class, declined))
                .isInstanceOf(ReplayedFailureException.class);

        assertThat(ran).hasValue(1);
        assertThat(orders("pay-cf")).isZero();
    }

    /** Issue 11.3: the declined payment is not charged on retry. */
    @ParameterizedTest
    @MethodSource("servers")
    void aFinalFailureInItsOwnTransactionIsRecordedAndReplayedNotRunAgain(Servers servers) throws Exception {
        setUp(servers);
        JdbcTransactionalIdempotency tx = storingFinalFailures();
        AtomicInteger ran = new AtomicInteger();

        assertThatThrownBy(() -> tx.executeInTransaction(key("pay-1"), Fingerprint.none(), Integer.class, c -> {
                    ran.incrementAndGet();
                    insertOrder(c, "pay-1");
                    throw new PaymentDeclined("card declined");
                }))
                .isInstanceOf(PaymentDeclined.class);
        assertThatThrownBy(() -> tx.executeInTransaction(key("pay-1"), Fingerprint.none(), Integer.class, c -> {
                    ran.incrementAndGet();
                    return insertOrder(c, "pay-1"); // the retry would succeed: a charge on retry
                }))
                .isInstanceOf(ReplayedFailureException.class)
                .hasMessageContaining("card declined");

        assertThat(ran).hasValue(1);
        assertThat(orders("pay-1")).isZero(); // the failed work itself was rolled back
    }

    /** Issue 11.3, caller-owned transaction: the caller rolls back, the final failure stays recorded. */
    @ParameterizedTest
    @MethodSource("servers")
    void aFinalFailureInTheCallersTransactionIsRecordedThoughTheCallerRollsBack(Servers servers) throws Exception {
        setUp(servers);
        JdbcTransactionalIdempotency tx = storingFinalFailures();
        AtomicInteger ran = new AtomicInteger();

        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, "before-pay-2"); // the caller's own earlier statement in the transaction
            assertThatThrownBy(() -> tx.execute(c, key("pay-2"), Fingerprint.none(), Integer.class, conn -> {
                        ran.incrementAndGet();
                        insertOrder(conn, "pay-2");
                        throw new PaymentDeclined("card declined");
                    }))
                    .isInstanceOf(PaymentDeclined.class);
            c.rollback();
        }
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> tx.execute(c, key("pay-2"), Fingerprint.none(), Integer.class, conn -> {
                        ran.incrementAndGet();
                        return insertOrder(conn, "pay-2");
                    }))
                    .isInstanceOf(ReplayedFailureException.class);
            c.rollback();
        }

        assertThat(ran).hasValue(1);
        assertThat(orders("pay-2")).isZero();
        assertThat(orders("before-pay-2")).isZero();
    }

    /** A final failure on a key whose earlier record expired replaces that record. */
    @ParameterizedTest
    @MethodSource("servers")
    void aFinalFailureOnAnExpiredKeyReplacesTheExpiredRecordInBothModes(Servers servers) throws Exception {
        setUp(servers);
        JdbcIdempotencyStore store = TestDatabases.store(ds);
        JdbcTransactionalIdempotency tx = storingFinalFailures();
        for (String k : List.of("exp-own", "exp-caller")) {
            Idempotency.of(
                            store,
                            IdempotencyConfig.custom()
                                    .retention(Duration.ofMillis(1))
                                    .build())
                    .execute(key(k), Fingerprint.none(), Integer.class, () -> 7);
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> store.find(key("exp-own")).isEmpty()
                        && store.find(key("exp-caller")).isEmpty());

        assertThatThrownBy(() -> tx.executeInTransaction(key("exp-own"), Fingerprint.none(), Integer.class, c -> {
                    throw new PaymentDeclined("declined");
                }))
                .isInstanceOf(PaymentDeclined.class);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> tx.execute(c, key("exp-caller"), Fingerprint.none(), Integer.class, conn -> {
                        throw new PaymentDeclined("declined");
                    }))
                    .isInstanceOf(PaymentDeclined.class);
            c.rollback();
        }

        assertThat(store.find(key("exp-own")))
                .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.FAILED));
        assertThat(store.find(key("exp-caller")))
                .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.FAILED));
    }

    /**
     * A duplicate waits on the first caller's claim row when the first one's work fails finally: the
     * failure is recorded outside the first transaction (or the duplicate's result replaces it), and
     * neither call hangs on the other's locks.
     */
    @ParameterizedTest
    @MethodSource("rowLocking")
    void aFinalFailureWhileADuplicateWaitsOnTheClaimDoesNotDeadlock(Servers servers) throws Exception {
        setUp(servers);
        JdbcTransactionalIdempotency tx = storingFinalFailures();
        CountDownLatch firstWorking = new CountDownLatch(1);
        CountDownLatch duplicateWaiting = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Object> first = pool.submit(() -> {
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    try {
                        return tx.execute(c, key("wait"), Fingerprint.none(), Integer.class, conn -> {
                            firstWorking.countDown();
                            assertThat(duplicateWaiting.await(30, TimeUnit.SECONDS))
                                    .isTrue();
                            throw new PaymentDeclined("declined");
                        });
                    } catch (PaymentDeclined | ReplayedFailureException e) {
                        return e;
                    } finally {
                        c.rollback();
                    }
                }
            });
            assertThat(firstWorking.await(30, TimeUnit.SECONDS)).isTrue();
            Future<Object> duplicate = pool.submit(() -> {
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    try {
                        Object o = tx.execute(c, key("wait"), Fingerprint.none(), Integer.class, conn -> 1);
                        c.commit();
                        return o;
                    } catch (ReplayedFailureException e) {
                        c.rollback();
                        return e;
                    }
                }
            });
            await().atMost(Duration.ofSeconds(20)).until(() -> lockWaits(servers) > 0);
            duplicateWaiting.countDown();

            Object a = first.get(20, TimeUnit.SECONDS);
            Object b = duplicate.get(20, TimeUnit.SECONDS);
            // Either the failure was recorded first (the duplicate replays it) or the duplicate ran
            // once the first claim was undone (and the first call then replays its result).
            assertThat(a).isInstanceOfAny(PaymentDeclined.class, Outcome.class);
            assertThat(b).isInstanceOfAny(ReplayedFailureException.class, Outcome.class);
            if (a instanceof Outcome<?> replayed) { // the duplicate's result became the key's outcome
                assertThat(replayed).isEqualTo(Outcome.replayed(1));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Transactions waiting on a row lock in the test's database (in each shard database through ShardingSphere). */
    private int lockWaits(Servers servers) throws SQLException {
        if (!servers.sharded()) {
            return TestDatabases.lockWaits(ds, servers.db());
        }
        int waits = 0;
        for (String url : servers.urls()) {
            try (Connection c = ShardedDatabases.connect(servers.db(), url);
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery(TestDatabases.lockWaitsSql(servers.db()))) {
                rs.next();
                waits += rs.getInt(1);
            }
        }
        return waits;
    }

    /** A failure the policy does not call final still leaves nothing behind: a retry runs. */
    @ParameterizedTest
    @MethodSource("servers")
    void aTransientFailureUnderAStoringPolicyStillLeavesTheKeyFree(Servers servers) throws Exception {
        setUp(servers);
        JdbcTransactionalIdempotency tx = storingFinalFailures();

        assertThatThrownBy(() -> tx.executeInTransaction(key("tr-1"), Fingerprint.none(), Integer.class, c -> {
                    insertOrder(c, "tr-1");
                    throw new IllegalStateException("timeout");
                }))
                .isInstanceOf(IllegalStateException.class);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> tx.execute(c, key("tr-2"), Fingerprint.none(), Integer.class, conn -> {
                        insertOrder(conn, "tr-2");
                        throw new IllegalStateException("timeout");
                    }))
                    .isInstanceOf(IllegalStateException.class);
            c.rollback();
        }

        assertThat(tx.executeInTransaction(key("tr-1"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "tr-1")))
                .isEqualTo(Outcome.first(1));
        assertThat(tx.executeInTransaction(key("tr-2"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "tr-2")))
                .isEqualTo(Outcome.first(1));
        assertThat(orders("tr-1")).isEqualTo(1);
        assertThat(orders("tr-2")).isEqualTo(1);
    }

    /** MariaDB's default REPEATABLE READ: the re-read must not trust the transaction's old snapshot. */
    @ParameterizedTest
    @MethodSource("mariaDb")
    void staleSnapshotStillSeesTheCommittedClaim(Servers servers) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(servers);
        try (Connection late = ds.getConnection()) {
            late.setAutoCommit(false);
            late.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement st = late.createStatement()) {
                st.executeQuery("SELECT COUNT(*) FROM dupguard_idempotency").close(); // snapshot taken here
            }
            // Another machine claims, works and commits after the snapshot was taken.
            tx.executeInTransaction(key("snap"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "snap"));

            Outcome<Integer> o =
                    tx.execute(late, key("snap"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "snap"));
            late.commit();

            assertThat(o).isEqualTo(Outcome.replayed(1));
        }
        assertThat(orders("snap")).isEqualTo(1);
    }

    /**
     * PostgreSQL under REPEATABLE READ refuses the claim with a serialization failure (SQLState
     * 40001) instead of letting the stale snapshot decide; the caller retries the transaction.
     */
    @ParameterizedTest
    @MethodSource("postgres")
    void staleSnapshotOnPostgresFailsWithASerializationErrorAndNoDuplicate(Servers servers) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(servers);
        try (Connection late = ds.getConnection()) {
            late.setAutoCommit(false);
            late.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement st = late.createStatement()) {
                st.executeQuery("SELECT COUNT(*) FROM dupguard_idempotency").close();
            }
            tx.executeInTransaction(key("snap"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "snap"));

            assertThatThrownBy(() -> tx.execute(
                            late, key("snap"), Fingerprint.none(), Integer.class, c -> insertOrder(c, "snap")))
                    .isInstanceOf(io.dupguard.StoreUnavailableException.class)
                    .hasMessageContaining("40001");
            late.rollback();
        }
        assertThat(orders("snap")).isEqualTo(1);
    }
}

package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.jdbc.TestDatabases.Servers;
import io.dupguard.memory.InMemoryLockProvider;
import io.dupguard.state.IllegalTransitionException;
import io.dupguard.state.StateMachine;
import io.dupguard.state.TransitionResult;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** State transitions, CAS helpers, the unfinished-task guard and create-once, hammered concurrently (O1–O6, K2, K3). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GuardedWritesIT {
    enum Status {
        READY,
        PAYING,
        SUCCESS,
        FAIL
    }

    private static final StateMachine<Status> ORDERS = StateMachine.builder(Status.class)
            .transition(Status.READY, Status.PAYING)
            .transition(Status.PAYING, Status.SUCCESS, Status.FAIL)
            .build();

    private NodePools pools;
    private DataSource ds;
    private ExecutorService pool;

    @BeforeEach
    void threads() {
        pool = Executors.newFixedThreadPool(32);
    }

    @AfterEach
    void close() {
        pool.shutdownNow();
        if (pools != null) {
            pools.close();
        }
    }

    /** Every single server, and the Galera cluster with the threads spread over its nodes. */
    Stream<Servers> servers() {
        return Stream.concat(singleServers(), Stream.of(Servers.galera()));
    }

    /** Where a row lock holds for every machine: every single server (not Galera). */
    Stream<Servers> singleServers() {
        return Stream.of(Db.values()).map(Servers::one);
    }

    private void setUp(Servers servers, String... ddl) throws SQLException {
        pools = servers.everyServer(24 / servers.urls().size());
        ds = pools.dataSource();
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            for (String s : ddl) {
                st.execute(s);
            }
        }
    }

    private void sql(String statement, Object... params) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(statement)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.execute();
        }
    }

    private long count(String query, Object... params) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(query)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private <T> List<T> hammer(int threads, Callable<T> task) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<T>> futures = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            futures.add(pool.submit(() -> {
                start.await();
                return task.call();
            }));
        }
        start.countDown();
        List<T> out = new ArrayList<>();
        for (Future<T> f : futures) {
            out.add(f.get(120, TimeUnit.SECONDS));
        }
        return out;
    }

    @ParameterizedTest
    @MethodSource("servers")
    void thirtyTwoThreadsApplyingOneTransitionGetOneApplied(Servers servers) throws Exception {
        setUp(
                servers,
                "DROP TABLE IF EXISTS dg_orders",
                "CREATE TABLE dg_orders (id BIGINT PRIMARY KEY, status VARCHAR(16) NOT NULL, note VARCHAR(20))");
        sql("INSERT INTO dg_orders VALUES (1, 'READY', NULL)");
        JdbcTransitions<Status> transitions = JdbcTransitions.of(ORDERS, "dg_orders", "id", "status");

        List<TransitionResult<Status>> results = hammer(32, () -> {
            try (Connection c = ds.getConnection()) {
                return transitions.apply(c, 1L, Status.READY, Status.PAYING);
            }
        });

        assertThat(results).filteredOn(TransitionResult::applied).hasSize(1);
        assertThat(results)
                .filteredOn(r -> r instanceof TransitionResult.AlreadyApplied)
                .hasSize(31);
        try (Connection c = ds.getConnection()) {
            assertThat(transitions.apply(c, 1L, Status.READY, Status.PAYING))
                    .isEqualTo(new TransitionResult.AlreadyApplied<>(Status.PAYING));
            assertThat(transitions.apply(c, 1L, Status.PAYING, Status.SUCCESS, "note = ?", "paid"))
                    .isEqualTo(TransitionResult.applied(Status.PAYING, Status.SUCCESS));
            assertThat(transitions.apply(c, 1L, Status.PAYING, Status.FAIL))
                    .isEqualTo(new TransitionResult.Rejected<>(Status.SUCCESS));
            assertThat(transitions.apply(c, 99L, Status.READY, Status.PAYING))
                    .isEqualTo(new TransitionResult.Rejected<Status>(null));
            assertThatThrownBy(() -> transitions.apply(c, 1L, Status.SUCCESS, Status.READY))
                    .isInstanceOf(IllegalTransitionException.class);
        }
    }

    @ParameterizedTest
    @MethodSource("servers")
    void thousandConcurrentDeductionsNeverOversell(Servers servers) throws Exception {
        setUp(
                servers,
                "DROP TABLE IF EXISTS dg_stock",
                "CREATE TABLE dg_stock (sku VARCHAR(20) PRIMARY KEY, avail DECIMAL(10,0) NOT NULL)");
        sql("INSERT INTO dg_stock VALUES ('apple', 300)");

        List<Boolean> results = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            results.addAll(hammer(250, () -> {
                try (Connection c = ds.getConnection()) {
                    return Cas.deduct(c, "dg_stock", "sku", "apple", "avail", 1);
                }
            }));
        }

        assertThat(results).hasSize(1000).filteredOn(ok -> ok).hasSize(300);
        assertThat(count("SELECT avail FROM dg_stock WHERE sku = ?", "apple")).isZero();
        assertThatThrownBy(() -> Cas.deduct(ds.getConnection(), "dg_stock", "sku", "apple", "avail", BigDecimal.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @MethodSource("servers")
    void versionAndAbsoluteCasLetOnlyOneRacerWin(Servers servers) throws Exception {
        setUp(
                servers,
                "DROP TABLE IF EXISTS dg_account",
                "CREATE TABLE dg_account (id INT PRIMARY KEY, balance DECIMAL(12,2) NOT NULL, version BIGINT NOT NULL)");
        sql("INSERT INTO dg_account VALUES (1, 100.00, 0)");

        List<Boolean> versioned = hammer(16, () -> {
            try (Connection c = ds.getConnection()) {
                return Cas.updateVersioned(
                        c, "dg_account", "id", 1, "version", 0, "balance = ?", new BigDecimal("150.00"));
            }
        });
        List<Boolean> absolute = hammer(16, () -> {
            try (Connection c = ds.getConnection()) {
                // a replayed credit carries the balance it read: only the first applies (O4)
                return Cas.compareAndSet(
                        c, "dg_account", "id", 1, "balance", new BigDecimal("150.00"), new BigDecimal("160.00"));
            }
        });

        assertThat(versioned).filteredOn(ok -> ok).hasSize(1);
        assertThat(absolute).filteredOn(ok -> ok).hasSize(1);
        assertThat(count("SELECT version FROM dg_account WHERE id = 1")).isEqualTo(1);
        assertThat(count("SELECT CAST(balance AS BIGINT) FROM dg_account WHERE id = 1"
                        .replace("BIGINT", servers.db() == Db.MARIADB ? "SIGNED" : "BIGINT")))
                .isEqualTo(160);
    }

    /** Not on Galera: the guard row's lock holds only on its node (docs/scaling.md, "Galera"). */
    @ParameterizedTest
    @MethodSource("singleServers")
    void onlyOneUnfinishedTaskOfAKind(Servers servers) throws Exception {
        setUp(
                servers,
                "DROP TABLE IF EXISTS dg_tasks",
                "CREATE TABLE dg_tasks (id INT NOT NULL, kind VARCHAR(64) NOT NULL, status VARCHAR(16) NOT NULL)");
        UnfinishedGuard guard =
                UnfinishedGuard.builder(ds).createSchemaIfMissing(true).build();
        // Through ShardingSphere the guard row goes on the business table's shard (dg_tasks, a single
        // table on shard0): a commit is atomic on one shard only (docs/scaling-sharding.md).
        String kind = servers.sharded()
                ? ShardedDatabases.keyOnShard("2026-11-22/east/settlement-" + servers + "-", 0)
                : "2026-11-22/east/settlement-" + servers;

        List<Optional<Integer>> results = hammer(16, () -> {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                Optional<Integer> r = guard.insertIfNoneUnfinished(
                        c,
                        kind,
                        conn -> {
                            try (PreparedStatement ps = conn.prepareStatement(
                                    "SELECT COUNT(*) FROM dg_tasks WHERE kind = ? AND status <> 'DONE'")) {
                                ps.setString(1, kind);
                                try (ResultSet rs = ps.executeQuery()) {
                                    rs.next();
                                    return rs.getInt(1) > 0;
                                }
                            }
                        },
                        conn -> {
                            try (PreparedStatement ps =
                                    conn.prepareStatement("INSERT INTO dg_tasks VALUES (1, ?, 'RUNNING')")) {
                                ps.setString(1, kind);
                                return ps.executeUpdate();
                            }
                        });
                c.commit();
                return r;
            }
        });

        assertThat(results).filteredOn(Optional::isPresent).hasSize(1);
        assertThat(count("SELECT COUNT(*) FROM dg_tasks WHERE kind = ?", kind)).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("servers")
    void createOnceUnderThirtyTwoThreadsCreatesOneRowAndVerifiesFields(Servers servers) throws Exception {
        setUp(
                servers,
                "DROP TABLE IF EXISTS dg_balance",
                "CREATE TABLE dg_balance (user_id INT NOT NULL, currency VARCHAR(3) NOT NULL, amount DECIMAL(12,2) NOT NULL,"
                        + " CONSTRAINT dg_balance_uk UNIQUE (user_id))");
        CreateOnce create = CreateOnce.builder(ds, "dg_balance")
                .keyColumns("user_id")
                .verifiedColumns("currency")
                .build();

        List<CreateOnce.Result> results =
                hammer(32, () -> create.create(Map.of("user_id", 7, "currency", "CNY", "amount", BigDecimal.ZERO)));

        assertThat(results).filteredOn(CreateOnce.Result::created).hasSize(1);
        assertThat(count("SELECT COUNT(*) FROM dg_balance WHERE user_id = 7")).isEqualTo(1);
        assertThatThrownBy(() -> create.create(Map.of("user_id", 7, "currency", "USD", "amount", BigDecimal.ZERO)))
                .isInstanceOf(RowConflictException.class)
                .hasMessageContaining("currency");
    }

    @ParameterizedTest
    @MethodSource("servers")
    void lockBasedCreateOnceStrategiesAlsoCreateOneRow(Servers servers) throws Exception {
        setUp(
                servers,
                "DROP TABLE IF EXISTS dg_binding",
                "CREATE TABLE dg_binding (open_id VARCHAR(40) NOT NULL, local_id INT NOT NULL)"); // no unique key
        InMemoryLockProvider locks = new InMemoryLockProvider();
        for (CreateOnce.Strategy s : new CreateOnce.Strategy[] {CreateOnce.Strategy.LOCK_DOUBLE_CHECK}) {
            CreateOnce create = CreateOnce.builder(ds, "dg_binding")
                    .keyColumns("open_id")
                    .strategy(s, locks)
                    .build();
            String openId = "wx-" + s;
            List<CreateOnce.Result> results = hammer(16, () -> create.create(Map.of("open_id", openId, "local_id", 1)));

            assertThat(results).filteredOn(CreateOnce.Result::created).hasSize(1);
            assertThat(count("SELECT COUNT(*) FROM dg_binding WHERE open_id = ?", openId))
                    .isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Db.class, names = "H2")
    void rejectsNonIdentifierNames(Db db) throws SQLException {
        setUp(Servers.one(db));
        assertThatThrownBy(() -> JdbcTransitions.of(ORDERS, "orders; drop", "id", "status"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table");
        assertThatThrownBy(() -> CreateOnce.builder(ds, "t").build()).hasMessageContaining("keyColumns");
        assertThatThrownBy(() -> CreateOnce.builder(ds, "t")
                        .keyColumns("k")
                        .strategy(CreateOnce.Strategy.LOCK_DOUBLE_CHECK, null)
                        .build())
                .hasMessageContaining("LockProvider");
    }
}

package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.ReadOnlyStoreException;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.retry.NewTask;
import io.dupguard.state.StateMachine;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * guarantee K7 on a real replicated pair started by {@code scripts/services}: every JDBC store and helper
 * pointed at the replica refuses with {@link ReadOnlyStoreException} before it writes anything —
 * asked as the administrator, whom MariaDB would let write past {@code read_only} — and a store that
 * met the primary maps the read-only write error of a later failover to the same exception.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractReadOnlyReplicaIT {
    enum Flow {
        NEW,
        PAID
    }

    private static final StateMachine<Flow> FLOW =
            StateMachine.builder(Flow.class).transition(Flow.NEW, Flow.PAID).build();

    /** Unique per run: other builds share the servers. */
    private final String prefix = "dg_k7_" + Long.toString(System.nanoTime(), 36);

    private final String entity = prefix + "_e";
    private final String cause;
    final HikariDataSource primary;
    final HikariDataSource replica;
    /** An account that cannot write past read_only: the server refuses its writes. */
    final HikariDataSource replicaWriter;

    /**
     * @param primaryUrl the primary, as an administrator
     * @param replicaUrl its replica, as an administrator
     * @param replicaWriterUrl its replica, as an account the server refuses writes from
     * @param cause what the refusal names, e.g. {@code pg_is_in_recovery() = true}
     */
    AbstractReadOnlyReplicaIT(String primaryUrl, String replicaUrl, String replicaWriterUrl, String cause) {
        this.cause = cause;
        primary = pool(primaryUrl);
        replica = pool(replicaUrl);
        replicaWriter = pool(replicaWriterUrl);
    }

    static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    /** Makes the session of {@code c} read-only, so that its next write fails as on a replica. */
    abstract String readOnlySession();

    /** Makes the session of {@code c} read-write again. */
    abstract String readWriteSession();

    @BeforeAll
    void createEntityTable() throws SQLException {
        update(
                primary,
                "CREATE TABLE " + entity
                        + " (id INT PRIMARY KEY, status VARCHAR(16), version BIGINT, stock INT, fence BIGINT)");
        update(primary, "INSERT INTO " + entity + " VALUES (1, 'NEW', 0, 10, 0)");
        awaitReplicated(entity);
    }

    @AfterAll
    void dropTablesAndClosePools() throws SQLException {
        for (String suffix : new String[] {"_e", "_f", "_h"}) {
            update(primary, "DROP TABLE IF EXISTS " + prefix + suffix);
        }
        primary.close();
        replica.close();
        replicaWriter.close();
    }

    @Test
    void everyStoreBuiltOnTheReplicaRefusesBeforeItWrites() throws SQLException {
        IdempotencyKey key = IdempotencyKey.of("k7", "order-1");
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(replica)
                .tableName(prefix + "_i")
                .createSchemaIfMissing(true)
                .build();
        assertRefused(() -> store.claim(key, Fingerprint.none(), "owner", Duration.ofSeconds(30)));
        assertRefused(() -> JdbcTransactionalIdempotency.of(store)
                .executeInTransaction(key, Fingerprint.none(), String.class, c -> "charged"));
        assertRefused(() -> JdbcLockProvider.builder(replica)
                .tableName(prefix + "_l")
                .createSchemaIfMissing(true)
                .build()
                .tryAcquire("k7"));
        assertRefused(() ->
                JdbcSubmissionTokens.create(replica, prefix + "_t", true).issue("k7", "alice", Duration.ofMinutes(1)));
        assertRefused(() -> JdbcSubmitThrottle.create(replica, prefix + "_s", true)
                .tryAcquire("k7", "alice", Duration.ofSeconds(1)));
        assertRefused(() ->
                JdbcPreparedSubmissions.create(replica, prefix + "_p", true).prepare("alice"));
        assertRefused(() -> JdbcRetryStore.builder(replica)
                .tableName(prefix + "_r")
                .createSchemaIfMissing(true)
                .build()
                .enqueue(NewTask.of("k7", "payload", "dedup-1")));
        assertRefused(() -> CreateOnce.builder(replica, entity)
                .keyColumns("id")
                .build()
                .create(Map.of("id", 2, "status", "NEW", "version", 0, "stock", 1, "fence", 0)));
        assertRefused(() -> {
            try (Connection c = replica.getConnection()) {
                c.setAutoCommit(false);
                UnfinishedGuard.builder(replica)
                        .tableName(prefix + "_g")
                        .createSchemaIfMissing(true)
                        .build()
                        .insertIfNoneUnfinished(c, "k7", x -> false, x -> 1);
            }
        });

        String storeTables = "SELECT COUNT(*) FROM information_schema.tables WHERE table_name IN ('"
                + String.join("', '", prefix + "_i", prefix + "_l", prefix + "_t", prefix + "_s")
                + "', '" + String.join("', '", prefix + "_p", prefix + "_r", prefix + "_g") + "')";
        assertThat(count(primary, storeTables))
                .as("store tables on the primary")
                .isZero();
        // root may write past MariaDB's read_only: only the check kept the stores from it
        assertThat(count(replica, storeTables))
                .as("store tables on the replica")
                .isZero();
        assertThat(count(primary, "SELECT COUNT(*) FROM " + entity)).isEqualTo(1);
        assertThat(count(replica, "SELECT COUNT(*) FROM " + entity)).isEqualTo(1);
        assertThat(count(primary, "SELECT COUNT(*) FROM " + entity)).isEqualTo(1);
    }

    @Test
    void helpersOnAReplicaConnectionRefuseAndChangeNothing() throws SQLException {
        try (Connection c = replica.getConnection()) {
            assertRefused(() -> JdbcTransitions.of(FLOW, entity, "id", "status").apply(c, 1, Flow.NEW, Flow.PAID));
            assertRefused(() -> Cas.updateVersioned(c, entity, "id", 1, "version", 0, "status = ?", "PAID"));
            assertRefused(() -> Cas.deduct(c, entity, "id", 1, "stock", 1));
            assertRefused(() -> Cas.compareAndSet(c, entity, "id", 1, "status", "NEW", "PAID"));
            assertRefused(() -> Fence.on(entity, "id", "fence").update(c, 1, 7, "status = ?", "PAID"));
        }
        assertThat(count(
                        primary,
                        "SELECT COUNT(*) FROM " + entity
                                + " WHERE status = 'NEW' AND version = 0 AND stock = 10 AND fence = 0"))
                .isEqualTo(1);
    }

    @Test
    void aStoreThatMetThePrimaryRefusesTheReadOnlyWriteErrorOfAFailover() throws SQLException {
        AtomicReference<DataSource> target = new AtomicReference<>(primary);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(switchable(target))
                .tableName(prefix + "_f")
                .createSchemaIfMissing(true)
                .build();
        assertThat(store.claim(IdempotencyKey.of("k7", "before"), Fingerprint.none(), "owner", Duration.ofSeconds(30)))
                .isInstanceOf(Claim.Claimed.class);
        awaitReplicated(prefix + "_f");

        target.set(replicaWriter); // the pool now reaches a replica: a failover, as the store sees it
        assertThatThrownBy(() -> store.claim(
                        IdempotencyKey.of("k7", "after"), Fingerprint.none(), "owner", Duration.ofSeconds(30)))
                .isInstanceOf(ReadOnlyStoreException.class)
                .hasMessageContaining("read-only server")
                .hasMessageContaining("primary")
                .cause()
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(ReadOnlyCheck.isReadOnlyRefusal((SQLException) e))
                        .isTrue());
        assertThat(count(primary, "SELECT COUNT(*) FROM " + prefix + "_f")).isEqualTo(1);
    }

    @Test
    void aHelperConnectionTurnedReadOnlyRefusesItsNextWrite() throws SQLException {
        update(primary, "CREATE TABLE " + prefix + "_h (id INT PRIMARY KEY, stock INT)");
        update(primary, "INSERT INTO " + prefix + "_h VALUES (1, 5)");
        try (Connection c = primary.getConnection()) {
            assertThat(Cas.deduct(c, prefix + "_h", "id", 1, "stock", 1)).isTrue();
            try (Statement st = c.createStatement()) {
                st.execute(readOnlySession());
            }
            try {
                assertThatThrownBy(() -> Cas.deduct(c, prefix + "_h", "id", 1, "stock", 1))
                        .isInstanceOf(ReadOnlyStoreException.class)
                        .hasCauseInstanceOf(SQLException.class);
            } finally {
                try (Statement st = c.createStatement()) {
                    st.execute(readWriteSession());
                }
            }
        }
        assertThat(count(primary, "SELECT stock FROM " + prefix + "_h")).isEqualTo(4);
    }

    /** A store on {@code url} claims a key: the URL led it to the primary. */
    static void assertClaimsOn(String url) {
        try (HikariDataSource ds = pool(url)) {
            JdbcIdempotencyStore store = TestDatabases.store(ds);
            IdempotencyKey key = IdempotencyKey.of("k7-url", url + "/" + System.nanoTime());
            assertThat(store.claim(key, Fingerprint.none(), "owner", Duration.ofSeconds(30)))
                    .isInstanceOf(Claim.Claimed.class);
            store.release(key, "owner");
        }
    }

    /** A store on {@code url} is refused: the URL led it to the replica. */
    void assertRefusedOn(String url) {
        try (HikariDataSource ds = pool(url)) {
            assertRefused(() -> TestDatabases.store(ds)
                    .claim(
                            IdempotencyKey.of("k7-url", "replica"),
                            Fingerprint.none(),
                            "owner",
                            Duration.ofSeconds(30)));
        }
    }

    void assertRefused(ThrowingCallable call) {
        assertThatThrownBy(call)
                .isInstanceOf(ReadOnlyStoreException.class)
                .hasMessageContaining(cause)
                .hasMessageContaining("must write to the primary");
    }

    /** Waits until {@code table} exists on the replica. */
    void awaitReplicated(String table) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> count(replica, "SELECT COUNT(*) FROM " + table) >= 0);
    }

    static long count(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void update(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** A data source that borrows from whichever pool {@code target} holds now. */
    static DataSource switchable(AtomicReference<DataSource> target) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    try {
                        return method.invoke(target.get(), args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}

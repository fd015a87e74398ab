package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.retry.ClaimedTask;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.RetryConfig;
import io.dupguard.retry.RetryListener;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.RetryTask;
import io.dupguard.retry.TaskHandler;
import io.dupguard.retry.TaskState;
import io.dupguard.test.ExpectedWarnings;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Faults on one database: a worker whose pool is closed and connection terminated mid-handler, a
 * stale worker completing late, a database outage during polls, and bad input.
 */
abstract class AbstractJdbcRetryFaultsIT {
    static final String TABLE = "retry_faults";
    static final String EFFECTS = "retry_faults_effects";

    final Db db;
    HikariDataSource admin;
    JdbcRetryStore adminStore;

    AbstractJdbcRetryFaultsIT(Db db) {
        this.db = db;
    }

    @BeforeEach
    void resetTables() throws SQLException {
        admin = TestDatabases.pool(db, 4);
        try (Connection c = admin.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
            st.execute("DROP TABLE IF EXISTS " + EFFECTS);
            st.execute("CREATE TABLE " + EFFECTS + " (task_id BIGINT NOT NULL, attempt INT NOT NULL)");
        }
        adminStore = store(admin);
    }

    @AfterEach
    void closeAdmin() {
        admin.close();
    }

    static JdbcRetryStore store(DataSource ds) {
        return JdbcRetryStore.builder(ds)
                .tableName(TABLE)
                .createSchemaIfMissing(true)
                .build();
    }

    static RetryConfig.Builder quick() {
        return RetryConfig.custom()
                .lease(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMillis(50))
                .maxPollBackoff(Duration.ofMillis(200))
                .shutdownTimeout(Duration.ofSeconds(1))
                .alertSink(a -> {});
    }

    /** The query answering the id the server knows a connection by. */
    abstract String backendIdQuery();

    long backendId(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(backendIdQuery());
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Writes the effect and completes the task in one transaction on {@code pool}. */
    static io.dupguard.retry.TaskHandler completing(DataSource pool) {
        return t -> {
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                writeEffect(c, t.taskId().orElseThrow(), t.attempt());
                t.completeInTransaction(c);
                c.commit();
            }
        };
    }

    /** Terminates the connection with that id from another session. */
    abstract void terminate(Connection admin, long backendId) throws SQLException;

    long effects(long taskId) throws SQLException {
        try (Connection c = admin.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + EFFECTS + " WHERE task_id = ?")) {
            ps.setLong(1, taskId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static void writeEffect(Connection c, long taskId, int attempt) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO " + EFFECTS + " (task_id, attempt) VALUES (?, ?)")) {
            ps.setLong(1, taskId);
            ps.setInt(2, attempt);
            ps.executeUpdate();
        }
    }

    @Test
    @ExpectedWarnings("the killed worker's pool, lease renewals and late completion fail through its closed pool")
    void aWorkerKilledMidHandlerIsReplacedAndTheTaskEndsOnce() throws Exception {
        HikariDataSource poolA = TestDatabases.pool(db, 3);
        HikariDataSource poolB = TestDatabases.pool(db, 3);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong backend = new AtomicLong();
        AtomicInteger staleFailures = new AtomicInteger();
        RetryLog a = RetryLog.builder(store(poolA))
                .handler("charge", t -> {
                    try (Connection c = poolA.getConnection()) {
                        c.setAutoCommit(false);
                        backend.set(backendId(c));
                        writeEffect(c, t.taskId().orElseThrow(), t.attempt());
                        t.completeInTransaction(c);
                        started.countDown();
                        release.await(30, TimeUnit.SECONDS);
                        c.commit(); // the connection was terminated: fails
                    } catch (SQLException e) {
                        staleFailures.incrementAndGet();
                        throw e;
                    }
                })
                .config(quick().build())
                .build();
        RetryLog b = RetryLog.builder(store(poolB))
                .handler("charge", completing(poolB))
                .config(quick().build())
                .build();
        try (poolB;
                a;
                b) {
            long id = adminStore.enqueue(NewTask.of("charge", "order-1", null)).id();
            a.start();
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            try (Connection c = admin.getConnection()) {
                terminate(c, backend.get());
            }
            poolA.close(); // the machine is gone: no more lease renewals
            b.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> state(id) == TaskState.SUCCEEDED);
            release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> staleFailures.get() == 1);
            RetryTask done = adminStore.find(id).orElseThrow();
            assertThat(done.attempts()).isEqualTo(2);
            assertThat(effects(id)).isEqualTo(1);
        } finally {
            release.countDown();
        }
    }

    /**
     * The task key as the idempotency key of an external call (the docs' example): the worker dies
     * after the payment platform charged but before the task completed; the retry calls the platform
     * again with the same key, the platform's {@link Idempotency} replays the first charge, and the
     * platform's table holds one charge.
     */
    @Test
    @ExpectedWarnings("the dead worker's late completion fails through its closed pool")
    void theTaskKeyMakesTheRetryOfAnExternalCallThatSucceededAReplay() throws Exception {
        HikariDataSource poolA = TestDatabases.pool(db, 3);
        CountDownLatch charged = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> keys = new CopyOnWriteArrayList<>();
        List<Outcome.Kind> outcomes = new CopyOnWriteArrayList<>();
        try (HikariDataSource platformPool = TestDatabases.pool(db, 4);
                HikariDataSource poolB = TestDatabases.pool(db, 3)) {
            PaymentPlatform platform = new PaymentPlatform(platformPool);
            TaskHandler charge = t -> {
                keys.add(t.taskKey());
                Outcome<String> o = platform.charge(t.taskKey(), t.payloadText());
                outcomes.add(o.kind());
                if (t.attempt() == 1) {
                    charged.countDown();
                    release.await(30, TimeUnit.SECONDS); // the machine dies here: no completion
                }
            };
            RetryLog a = RetryLog.builder(store(poolA))
                    .handler("charge", charge)
                    .config(quick().build())
                    .build();
            RetryLog b = RetryLog.builder(store(poolB))
                    .handler("charge", charge)
                    .config(quick().build())
                    .build();
            try (a;
                    b) {
                long id = adminStore
                        .enqueue(NewTask.of("charge", "order-7:1250", null))
                        .id();
                a.start();
                assertThat(charged.await(10, TimeUnit.SECONDS)).isTrue();
                poolA.close(); // gone: its lease is not renewed and its completion never lands
                b.start();
                await().atMost(Duration.ofSeconds(20)).until(() -> state(id) == TaskState.SUCCEEDED);
                assertThat(adminStore.find(id).orElseThrow().attempts()).isEqualTo(2);
                release.countDown(); // the dead worker's late completion is refused: its pool is gone
            } finally {
                release.countDown();
            }
            assertThat(keys).hasSize(2).containsOnly(keys.get(0));
            assertThat(outcomes).containsExactly(Outcome.Kind.FIRST, Outcome.Kind.REPLAYED);
            assertThat(platform.charges(keys.get(0))).isEqualTo(1);
        }
    }

    /** A downstream service charging once per idempotency key, with its own pool and tables. */
    static final class PaymentPlatform {
        static final String CHARGES = "retry_faults_charges";
        final DataSource pool;
        final Idempotency idempotency;

        PaymentPlatform(DataSource pool) throws SQLException {
            this.pool = pool;
            try (Connection c = pool.getConnection();
                    Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + CHARGES);
                st.execute("CREATE TABLE " + CHARGES + " (idem_key VARCHAR(64) NOT NULL, amount VARCHAR(32) NOT NULL)");
                st.execute("DROP TABLE IF EXISTS retry_faults_idempotency");
            }
            this.idempotency = Idempotency.of(JdbcIdempotencyStore.builder(pool)
                    .tableName("retry_faults_idempotency")
                    .createSchemaIfMissing(true)
                    .build());
        }

        /** Charges once per key; a repeated key replays the first charge's id. */
        Outcome<String> charge(String idempotencyKey, String order) throws SQLException {
            return idempotency.execute(
                    IdempotencyKey.of("platform.charge", idempotencyKey),
                    Fingerprint.ofString(order),
                    String.class,
                    () -> {
                        try (Connection c = pool.getConnection();
                                PreparedStatement ps = c.prepareStatement(
                                        "INSERT INTO " + CHARGES + " (idem_key, amount) VALUES (?, ?)")) {
                            ps.setString(1, idempotencyKey);
                            ps.setString(2, order.substring(order.indexOf(':') + 1));
                            ps.executeUpdate();
                        }
                        return "ch-" + idempotencyKey;
                    });
        }

        long charges(String idempotencyKey) throws SQLException {
            try (Connection c = pool.getConnection();
                    PreparedStatement ps =
                            c.prepareStatement("SELECT COUNT(*) FROM " + CHARGES + " WHERE idem_key = ?")) {
                ps.setString(1, idempotencyKey);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }
    }

    TaskState state(long id) {
        return adminStore.find(id).map(RetryTask::state).orElse(null);
    }

    @Test
    void aStaleWorkersCompletionIsRefusedAndItsEffectRolledBack() throws Exception {
        long id = adminStore.enqueue(NewTask.of("charge", "order-2", null)).id();
        ClaimedTask stale =
                adminStore.claim("stalled", 1, Duration.ofMillis(300)).get(0);
        AtomicInteger leaseLost = new AtomicInteger();
        try (HikariDataSource poolB = TestDatabases.pool(db, 3);
                RetryLog b = RetryLog.builder(store(poolB))
                        .handler("charge", completing(poolB))
                        .config(quick().listener(new RetryListener() {
                                    @Override
                                    public void onLeaseLost(long taskId, String type, int attempt) {
                                        leaseLost.incrementAndGet();
                                    }
                                })
                                .build())
                        .build()) {
            b.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> state(id) == TaskState.SUCCEEDED);
        }
        try (Connection c = admin.getConnection()) {
            c.setAutoCommit(false);
            writeEffect(c, id, stale.attempt());
            assertThatThrownBy(() -> adminStore.completeInTransaction(c, stale))
                    .isInstanceOf(LeaseLostException.class)
                    .hasMessageContaining("is no longer stalled's");
            c.rollback();
        }
        assertThat(effects(id)).isEqualTo(1);
        assertThat(adminStore.find(id).orElseThrow().attempts()).isEqualTo(2);
        assertThat(leaseLost).hasValue(0);
    }

    @Test
    @ExpectedWarnings("polls and lease renewals fail while the proxy is down")
    void aPollDuringAnOutageBacksOffAndResumesWithoutMarkingAnythingDone() throws Exception {
        int port = Integer.parseInt(TestDatabases.url(db).replaceAll(".*//[^:/]+:(\\d+)/.*", "$1"));
        AtomicInteger failedPolls = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        try (TcpProxy proxy = new TcpProxy(port);
                HikariDataSource proxied = proxied(proxy);
                RetryLog log = RetryLog.builder(store(proxied))
                        .handler("mail", t -> ran.incrementAndGet())
                        .config(quick().listener(new RetryListener() {
                                    @Override
                                    public void onPollFailed(Throwable failure) {
                                        failedPolls.incrementAndGet();
                                    }
                                })
                                .build())
                        .build()) {
            log.store().stats(); // creates the table through the proxy while it is up
            proxy.down();
            log.start();
            long id = adminStore.enqueue(NewTask.of("mail", "welcome", null)).id();
            await().atMost(Duration.ofSeconds(20)).until(() -> failedPolls.get() >= 3);
            assertThat(state(id)).isEqualTo(TaskState.PENDING);
            assertThat(ran).hasValue(0);
            proxy.up();
            await().atMost(Duration.ofSeconds(20)).until(() -> state(id) == TaskState.SUCCEEDED);
            assertThat(ran).hasValue(1);
        }
    }

    @Test
    @ExpectedWarnings("HikariCP warns when it closes a pool that never reached its database")
    void aFailedInlineRunThatCannotBeRecordedSurfacesWithTheHandlersFailure() throws Exception {
        try (HikariDataSource down = TestDatabases.unreachable(db)) {
            RetryLog log = RetryLog.builder(JdbcRetryStore.builder(down)
                            .dialect(SqlDialect.named(db == Db.MARIADB ? "mariadb" : db.name()))
                            .build())
                    .handler("pay", t -> {
                        throw new IOException("platform timeout");
                    })
                    .build();
            assertThatThrownBy(() -> log.run("pay", "order-9"))
                    .isInstanceOf(StoreUnavailableException.class)
                    .satisfies(
                            e -> assertThat(e.getSuppressed()).singleElement().satisfies(s -> assertThat(s)
                                    .hasMessage("platform timeout")));
        }
    }

    @Test
    void badInputIsRejectedBeforeTheCallersTransactionIsTouched() throws Exception {
        try (Connection c = admin.getConnection()) {
            c.setAutoCommit(false);
            long id = adminStore
                    .enqueue(c, "mail", "ok".getBytes(java.nio.charset.StandardCharsets.UTF_8), "k1")
                    .id();
            assertThatThrownBy(() -> adminStore.enqueue(c, "mail", new byte[NewTask.MAX_PAYLOAD_BYTES + 1], null))
                    .hasMessage("payload must be at most 1048576 bytes, was 1048577");
            assertThatThrownBy(() -> adminStore.enqueue(c, "", new byte[1], null))
                    .hasMessage("type must not be blank");
            c.commit();
            assertThat(state(id)).isEqualTo(TaskState.PENDING);
        }
        assertThatThrownBy(() -> SqlDialect.named("oracle"))
                .hasMessage("unknown SQL dialect 'oracle'; known: h2, postgresql, mysql");
        assertThatThrownBy(() -> JdbcRetryStore.builder(admin).tableName("tasks; DROP TABLE x"))
                .hasMessageContaining("tableName must be a plain SQL identifier");
    }

    @Test
    void aTaskEnqueuedInTheCallersTransactionRunsAfterTheCommitAndNotAfterARollback() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        try (RetryLog log = RetryLog.builder(adminStore)
                .handler("mail", t -> ran.countDown())
                .config(quick().pollInterval(Duration.ofHours(1)).build())
                .build()
                .start()) {
            long rolledBack;
            try (Connection c = admin.getConnection()) {
                c.setAutoCommit(false);
                rolledBack = adminStore.enqueue(c, "mail", new byte[0], "r").id();
                c.rollback();
            }
            assertThat(adminStore.find(rolledBack)).isEmpty();
            long id;
            try (Connection c = admin.getConnection()) {
                c.setAutoCommit(false);
                id = adminStore.enqueue(c, "mail", new byte[0], "c").id();
                assertThat(adminStore.find(id))
                        .as("invisible before the commit")
                        .isEmpty();
                c.commit();
            }
            // The poll interval is an hour: only the wake-up can run it this soon.
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> state(id) == TaskState.SUCCEEDED);
        }
    }

    HikariDataSource proxied(TcpProxy proxy) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabases.url(db).replaceFirst(":(\\d+)/", ":" + proxy.port() + "/"));
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(300);
        config.setValidationTimeout(250);
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }
}

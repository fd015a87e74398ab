package io.dupguard.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jackson.JacksonResultCodec;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.memory.InMemoryIdempotencyStore;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.TaskPage;
import io.dupguard.state.TransitionResult;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Runs the snippets that need nothing but memory or an embedded H2 database, so a snippet that compiles but fails at
 * once (a missing table it promises to create, a codec it cannot use) is caught too. Each test gets a fresh database.
 */
class RunnableSnippetsTest {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    private DataSource h2;

    @BeforeEach
    void freshDatabase() throws SQLException {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:docs" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        h2 = ds;
        // The shipped DDL, as the pages tell the reader to apply it.
        sql("RUNSCRIPT FROM 'classpath:/io/dupguard/jdbc/schema/h2.sql'");
    }

    @Test
    void readmeQuickstartRunsTheWorkOnceAndReplaysIt() {
        AtomicInteger charges = new AtomicInteger();
        ReadmeSnippets.Ledger ledger = (account, amount) -> "charge-" + charges.incrementAndGet();
        ReadmeSnippets.PaymentRequest request =
                new ReadmeSnippets.PaymentRequest("r-1", "acct-7", new BigDecimal("10.00"));

        var first = ReadmeSnippets.quickstart(h2, request, ledger);
        var retry = ReadmeSnippets.quickstart(h2, request, ledger);

        assertThat(first.isReplay()).isFalse();
        assertThat(retry.isReplay()).isTrue();
        assertThat(retry.value()).isEqualTo(first.value()).isEqualTo("charge-1");
        assertThat(charges).hasValue(1);
    }

    @Test
    void locksOverviewTakesBothLocks() {
        assertThat(LocksSnippets.overview("o-1", 7, BigDecimal.ONE)).isEqualTo(LocksSnippets.Response.ok());
    }

    @Test
    void idempotencyBatchRecordsEachMessageOnce() {
        Idempotency idempotency = Idempotency.of(
                new InMemoryIdempotencyStore(),
                IdempotencyConfig.custom().codec(JacksonResultCodec.create()).build());
        List<IdempotencySnippets.Message> messages = List.of(
                new IdempotencySnippets.Message("m-1", "a".getBytes(StandardCharsets.UTF_8)),
                new IdempotencySnippets.Message("m-2", "b".getBytes(StandardCharsets.UTF_8)));

        List<BatchResult<IdempotencySnippets.Receipt>> first = IdempotencySnippets.batch(idempotency, messages);
        List<BatchResult<IdempotencySnippets.Receipt>> again = IdempotencySnippets.batch(idempotency, messages);

        assertThat(first).allMatch(r -> r instanceof BatchResult.First);
        assertThat(again).allMatch(r -> r instanceof BatchResult.Replayed);
    }

    @Test
    void idempotencyTransactionalRunsInBothModes() throws SQLException {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(h2).build();
        try (Connection connection = h2.getConnection()) {
            connection.setAutoCommit(false);
            IdempotencySnippets.transactional(
                    store,
                    IdempotencyKey.of("orders", "o-1"),
                    Fingerprint.ofString("o-1"),
                    connection,
                    new IdempotencySnippets.Order("o-1"));
            connection.commit();
        }
    }

    @Test
    void submissionsRefuseAStaleTokenAndThrottleASecondSubmit() {
        assertThat(SubmissionsSnippets.tokens(h2, "u-1", new SubmissionsSnippets.FormRequest("not-issued")))
                .isEqualTo("This form was already submitted");
        assertThat(SubmissionsSnippets.prepared(h2, "u-1", new SubmissionsSnippets.Draft("hello"))
                        .value())
                .isEqualTo("post-1");
        assertThat(SubmissionsSnippets.throttle(h2, "u-1")).isEqualTo("Submitted");
        assertThat(SubmissionsSnippets.throttle(h2, "u-1")).isEqualTo("Too fast, try again");
    }

    @Test
    void stateAndCasSnippetsRunOnH2() throws SQLException {
        sql("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(16) NOT NULL)");
        sql("INSERT INTO orders VALUES (1, 'READY')");
        sql("CREATE TABLE account_balance (user_id INT PRIMARY KEY, currency VARCHAR(3) NOT NULL,"
                + " amount DECIMAL(19, 2) NOT NULL)");
        try (Connection conn = h2.getConnection()) {
            conn.setAutoCommit(false);
            assertThat(StateAndCasSnippets.statusFlow(conn, 1).applied()).isTrue();
            assertThat(StateAndCasSnippets.statusFlow(conn, 1)).isInstanceOf(TransitionResult.AlreadyApplied.class);
            assertThat(StateAndCasSnippets.unfinishedGuard(h2, conn)).contains(1L);
            conn.commit();
        }
        assertThat(StateAndCasSnippets.createOnce(h2).created()).isTrue();
        assertThat(StateAndCasSnippets.createOnce(h2).created()).isFalse();
    }

    @Test
    void retriesRunTheStepInlineAndOperateTheLog() throws SQLException {
        AtomicInteger charged = new AtomicInteger();
        List<Object> alerts = new CopyOnWriteArrayList<>();
        RetryLog retries = RetriesSnippets.overview(h2, task -> charged.incrementAndGet(), alerts::add, "o-1");
        retries.close();
        assertThat(charged).hasValue(1);
        assertThat(alerts).isEmpty();

        RetryLog declining = RetriesSnippets.overview(
                h2,
                task -> {
                    throw new RetriesSnippets.PlatformException(false);
                },
                alerts::add,
                "o-2");
        try {
            assertThat(alerts).hasSize(1); // BLOCKED, an alert fired (R3)
            long id = declining
                    .blocked("payment.charge", TaskPage.first(10))
                    .get(0)
                    .id();
            RetriesSnippets.blocked(declining, id);
        } finally {
            declining.close();
        }

        sql("CREATE TABLE orders (id VARCHAR(16) PRIMARY KEY)");
        RetriesSnippets.outbox(h2, JdbcRetryStore.create(h2), new RetriesSnippets.Order("o-3"));
    }

    private void sql(String statement) throws SQLException {
        try (Connection c = h2.getConnection();
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }
}

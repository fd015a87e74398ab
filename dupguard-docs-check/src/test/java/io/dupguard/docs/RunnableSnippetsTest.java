package io.dupguard.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.jackson.JacksonResultCodec;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import io.dupguard.memory.InMemoryIdempotencyStore;
import io.dupguard.memory.InMemoryLockProvider;
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
        // DAY: choosing.md fences a table keyed by a column named day, not a keyword on PostgreSQL or MySQL.
        ds.setURL("jdbc:h2:mem:docs" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1;NON_KEYWORDS=DAY");
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
    void submissionsRefuseAStaleTokenAndThrottleASecondSubmit() throws SQLException {
        SubmissionsSnippets.Cart cart = new SubmissionsSnippets.Cart("book");
        SubmissionsSnippets.FormRequest stale = new SubmissionsSnippets.FormRequest("not-issued");
        assertThat(SubmissionsSnippets.tokens(h2, "u-1", stale, c -> "order-1", cart))
                .isEqualTo("This form was already submitted");
        assertThat(SubmissionsSnippets.tokenInTransaction(h2, "u-1", stale, cart))
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

    @Test
    void choosingSnippetsRunOnH2() throws SQLException {
        Outcome<Long> charge = ChoosingSnippets.paymentApi(h2, "k-1", "acct-7", 1000);
        assertThat(ChoosingSnippets.paymentApi(h2, "k-1", "acct-7", 1000).isReplay())
                .isTrue();
        assertThat(charge.isReplay()).isFalse();

        assertThat(ChoosingSnippets.formToken(h2, "u-1", "not-issued")).isEqualTo("This form was already submitted");

        JdbcTransactionalIdempotency processed =
                JdbcTransactionalIdempotency.of(JdbcIdempotencyStore.builder(h2).build());
        List<ChoosingSnippets.Credit> batch = List.of(
                new ChoosingSnippets.Credit("m-1", "acct-7", 100), new ChoosingSnippets.Credit("m-2", "acct-7", 200));
        ChoosingSnippets.messageBatch(h2, processed, batch);
        ChoosingSnippets.messageBatch(h2, processed, batch);

        sql("CREATE TABLE account_balance (user_id BIGINT PRIMARY KEY, currency VARCHAR(3) NOT NULL,"
                + " amount DECIMAL(19, 2) NOT NULL)");
        assertThat(ChoosingSnippets.createOnce(h2, 7).created()).isTrue();
        assertThat(ChoosingSnippets.createOnce(h2, 7).created()).isFalse();

        ChoosingSnippets.stuckOrder(h2, "o-1").close();

        sql("CREATE TABLE settlement (day VARCHAR(10) PRIMARY KEY, status VARCHAR(8), fence BIGINT)");
        sql("INSERT INTO settlement (day, status) VALUES ('2026-11-26', 'OPEN')");
        ChoosingSnippets.fencedLock(new InMemoryLockProvider(), h2, "2026-11-26");
    }

    private void sql(String statement) throws SQLException {
        try (Connection c = h2.getConnection();
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }
}

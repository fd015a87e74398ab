package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jdbc.TestDatabases.Db;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A batch claimed in the caller's transaction commits or rolls back with the work's writes. */
class JdbcTransactionalBatchIT {
    private static final String TABLE = "dupguard_test_batch_tx";

    private HikariDataSource ds;
    private String scope;
    private final AtomicLong statements = new AtomicLong();

    private JdbcTransactionalIdempotency setUp(Db db) throws SQLException {
        ds = TestDatabases.pool(db, 4);
        scope = "btx-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute(
                    "CREATE TABLE IF NOT EXISTS " + TABLE + " (scope VARCHAR(64) NOT NULL, msg VARCHAR(100) NOT NULL)");
        }
        return JdbcTransactionalIdempotency.of(TestDatabases.store(ds));
    }

    @AfterEach
    void close() {
        ds.close();
    }

    private List<BatchEntry> batch(String... messages) {
        return java.util.Arrays.stream(messages)
                .map(m -> BatchEntry.of(IdempotencyKey.of(scope, m)))
                .toList();
    }

    private void insert(Connection c, String msg) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (scope, msg) VALUES (?, ?)")) {
            ps.setString(1, scope);
            ps.setString(2, msg);
            ps.executeUpdate();
        }
    }

    private int rows() throws SQLException {
        return TestDatabases.count(ds, "SELECT COUNT(*) FROM " + TABLE + " WHERE scope = ?", scope);
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void committedBatchReplaysAndTheEffectsAreThereOnce(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db);
        List<BatchEntry> batch = batch("m1", "m2", "m3");
        try (Connection c = StatementCounter.wrap(ds, statements).getConnection()) {
            c.setAutoCommit(false);
            tx.executeBatch(
                    c,
                    batch.subList(0, 1),
                    String.class,
                    (claimed, p) -> p.done(claimed.get(0).key(), "w"));
            long before = statements.get();
            List<BatchResult<String>> results =
                    tx.<String, SQLException>executeBatch(c, batch, String.class, (claimed, progress) -> {
                        for (BatchEntry e : claimed) {
                            insert(c, e.key().key());
                            progress.done(e.key(), "ok " + e.key().key());
                        }
                    });
            long sent = statements.get() - before;
            c.commit();
            assertThat(results.get(0)).isEqualTo(new BatchResult.Replayed<>(batch.get(0), "w"));
            assertThat(results.get(2)).isEqualTo(new BatchResult.First<>(batch.get(2), "ok m3"));
            if (db != Db.H2) {
                // PostgreSQL's claim is the insert and a read of the recorded key's row.
                assertThat(sent).as("claim, 2 inserts, completion").isEqualTo(db == Db.POSTGRESQL ? 5 : 4);
            }
        }
        assertThat(rows()).isEqualTo(2);

        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            List<BatchResult<String>> again = tx.<String, SQLException>executeBatch(
                    c, batch, String.class, (claimed, progress) -> insert(c, "must not run"));
            c.commit();
            assertThat(again).allMatch(r -> r instanceof BatchResult.Replayed<String>);
        }
        assertThat(rows()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void rolledBackBatchLeavesNeitherEffectsNorRecords(Db db) throws Exception {
        JdbcTransactionalIdempotency tx = setUp(db);
        List<BatchEntry> batch = batch("r1", "r2");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> tx.<String, SQLException>executeBatch(c, batch, String.class, (claimed, p) -> {
                        insert(c, "r1");
                        p.done(claimed.get(0).key(), "done");
                        throw new SQLException("the handler failed at r2");
                    }))
                    .hasMessage("the handler failed at r2");
            c.rollback();
        }
        assertThat(rows()).isZero();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            List<BatchResult<String>> retried =
                    tx.<String, SQLException>executeBatch(c, batch, String.class, (claimed, p) -> {
                        for (BatchEntry e : claimed) {
                            insert(c, e.key().key());
                            p.done(e.key(), "retried");
                        }
                    });
            c.commit();
            assertThat(retried).allMatch(r -> r instanceof BatchResult.First<String>);
        }
        assertThat(rows()).isEqualTo(2);
    }
}

package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.jdbc.TestDatabases.Db;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's batch statements reach the table through its primary key, never by scanning it: on
 * a table of 20,000 rows with fresh statistics (where a plain join of the keys with the table is
 * planned as a hash join over a sequential scan), and with generic plans cached while the table was
 * empty and used after it grew (a freshly truncated table, a new deployment). Counted by the
 * session's own table statistics ({@code pg_stat_xact_user_tables}) before and after the batches.
 */
class PostgresBatchPlanIT {
    private static final String TABLE = "dupguard_test_batch_plan";
    private static final int ROWS = 20_000;
    private static final int GROWN = 200_000;

    private HikariDataSource ds;
    private JdbcTransactionalIdempotency tx;

    @BeforeEach
    void setUp() throws SQLException {
        ds = TestDatabases.pool(Db.POSTGRESQL, 2);
        execute("DROP TABLE IF EXISTS " + TABLE);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                .tableName(TABLE)
                .createSchemaIfMissing(true)
                .build();
        store.dialect();
        tx = JdbcTransactionalIdempotency.of(store);
    }

    @AfterEach
    void tearDown() throws SQLException {
        execute("DROP TABLE IF EXISTS " + TABLE);
        ds.close();
    }

    private void execute(String sql) throws SQLException {
        execute(ds, sql);
    }

    private static void execute(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** {@value #ROWS} completed rows of another scope: the table a busy consumer has. */
    private void fill() throws SQLException {
        fill(ds, TABLE, ROWS);
    }

    /** {@code rows} completed rows of another scope in {@code table}. */
    private static void fill(DataSource ds, String table, int rows) throws SQLException {
        execute(
                ds,
                "INSERT INTO " + table + " (scope, idem_key, status, fingerprint, owner, payload, expires_at,"
                        + " purge_after) SELECT 'old', 'k-' || g, 'C', md5(g::text), NULL, NULL, now() + interval '1 day',"
                        + " now() + interval '1 day' FROM generate_series(1, " + rows + ") g");
    }

    private static List<BatchEntry> batch(String scope, int from, int to) {
        return IntStream.range(from, to)
                .mapToObj(i -> BatchEntry.of(IdempotencyKey.of(scope, "m" + i)))
                .toList();
    }

    /**
     * Sequential scans of the table by this session not yet reported to the server's statistics
     * (this transaction's, and possibly earlier ones' of the same connection): compare two readings.
     */
    private static long seqScans(Connection c) throws SQLException {
        return seqScans(c, TABLE);
    }

    private static long seqScans(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = '" + table + "'")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private void complete(Connection c, List<BatchEntry> batch) throws SQLException {
        complete(c, batch, String.class, "ok");
    }

    /**
     * A batch whose claimed entries are all done with {@code value}; with {@code Void} the claim
     * writes the rows completed (its own statement) and no completion follows.
     */
    private <T> void complete(Connection c, List<BatchEntry> batch, Class<T> type, T value) throws SQLException {
        complete(tx, c, batch, type, value);
    }

    private static <T> void complete(
            JdbcTransactionalIdempotency tx, Connection c, List<BatchEntry> batch, Class<T> type, T value)
            throws SQLException {
        List<BatchResult<T>> results = tx.<T, SQLException>executeBatch(c, batch, type, (claimed, progress) -> {
            for (BatchEntry e : claimed) {
                progress.done(e.key(), value);
            }
        });
        assertThat(results).allMatch(r -> r instanceof BatchResult.First<T> || r instanceof BatchResult.Replayed<T>);
    }

    private void release(Connection c, List<BatchEntry> batch, Class<?> type) {
        release(tx, c, batch, type);
    }

    private static void release(JdbcTransactionalIdempotency tx, Connection c, List<BatchEntry> batch, Class<?> type) {
        assertThatThrownBy(() -> tx.executeBatch(c, batch, type, (claimed, progress) -> {
                    throw new SQLException("the handler failed");
                }))
                .hasMessage("the handler failed");
    }

    @Test
    void aTableWithFreshStatisticsIsNeverScanned() throws SQLException {
        fill();
        execute("ANALYZE " + TABLE);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            long before = seqScans(c);
            for (int round = 0; round < 8; round++) { // past the driver's and the server's plan caching
                complete(c, batch("s" + round, 0, 100)); // claim + completion of new keys
                complete(c, batch("s" + round, 50, 150)); // half of them recorded: the claim reads them
                release(c, batch("f" + round, 0, 100), String.class); // claim, then release
                complete(c, batch("v" + round, 0, 100), Void.class, null); // completed rows claimed
                complete(c, batch("v" + round, 50, 150), Void.class, null);
                release(c, batch("fv" + round, 0, 100), Void.class); // completed rows claimed, then deleted
            }
            assertThat(seqScans(c) - before).isZero();
            c.commit();
        }
    }

    @Test
    void aGenericPlanCachedWhileTheTableWasEmptyDoesNotScanItOnceItGrew() throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("SET plan_cache_mode = force_generic_plan");
            }
            for (int round = 0; round < 8; round++) { // the plans are made and cached on an empty table
                complete(c, batch("e" + round, 0, 2));
                complete(c, batch("ev" + round, 0, 2), Void.class, null);
            }
            c.commit();
            fill(); // no ANALYZE: the cached plans stay
            long before = seqScans(c);
            complete(c, batch("g", 0, 100));
            complete(c, batch("g", 50, 150));
            complete(c, batch("gv", 0, 100), Void.class, null);
            complete(c, batch("gv", 50, 150), Void.class, null);
            assertThat(seqScans(c) - before).isZero();
            c.commit();
        }
    }

    /**
     * Every batch statement is planned on an empty, analyzed table (zero pages, zero rows: a
     * sequential scan costs nothing) on one connection that keeps its prepared statements and
     * their generic plans; the table then grows to {@value #ROWS} rows with no new statistics, and
     * the same connection claims (new keys, recorded keys), completes and releases batches again.
     * The table is this test's own (and autovacuum is off for it, so no analyze replaces the plans).
     */
    @Test
    void plansMadeOnAnEmptyAnalyzedTableDoNotScanItOnceItGrew() throws SQLException {
        String table = "dupguard_test_plan_" + Long.toHexString(System.nanoTime());
        try {
            JdbcTransactionalIdempotency own = JdbcTransactionalIdempotency.of(emptyAnalyzed(ds, table));
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try (Statement st = c.createStatement()) {
                    st.execute("SET plan_cache_mode = force_generic_plan");
                }
                for (int round = 0; round < 8; round++) { // past pgJDBC's prepareThreshold: server-side plans
                    every(own, c, "e" + round);
                    c.commit();
                }
                fill(ds, table, ROWS);
                long before = seqScans(c, table);
                every(own, c, "g");
                assertThat(seqScans(c, table) - before).isZero();
                c.commit();
            }
        } finally {
            execute("DROP TABLE IF EXISTS " + table);
        }
    }

    /** A pool of one connection, reused by every call of a test; {@code initSql} run when it opens, if not null. */
    private static HikariDataSource oneConnection(String initSql) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabases.url(Db.POSTGRESQL));
        config.setMaximumPoolSize(1);
        if (initSql != null) {
            config.setConnectionInitSql(initSql);
        }
        return new HikariDataSource(config);
    }

    /**
     * One reused connection plans every batch statement on an empty, analyzed table with generic
     * plans forced; the table then grows to {@value #GROWN} rows (no new statistics) and the same
     * connection claims, completes and releases batches again, in the caller's transaction and in
     * autocommit through the store. The server's own count of sequential scans of the table
     * ({@code pg_stat_user_tables.seq_scan}, every session's, flushed) does not move.
     */
    @Test
    void aTableGrownPastPlansMadeWhileItWasEmptyIsNeverScanned() throws SQLException {
        String table = "dupguard_test_grown_" + Long.toHexString(System.nanoTime());
        try (HikariDataSource one = oneConnection("SET plan_cache_mode = force_generic_plan")) {
            JdbcIdempotencyStore store = emptyAnalyzed(one, table);
            JdbcTransactionalIdempotency own = JdbcTransactionalIdempotency.of(store);
            for (int round = 0; round < 8; round++) { // past pgJDBC's prepareThreshold: server-side plans
                rounds(own, store, one, "e" + round);
            }
            fill(one, table, GROWN);
            long before = flushedSeqScans(one, table);
            for (int round = 0; round < 3; round++) {
                rounds(own, store, one, "g" + round);
            }
            assertThat(flushedSeqScans(one, table) - before).isZero();
        } finally {
            execute("DROP TABLE IF EXISTS " + table);
        }
    }

    /**
     * The single-key path the per-record listeners take ({@code execute(connection, …, Void.class,
     * …)}: the claim inserts the completed row, a duplicate's claim then reads the row): on one
     * reused connection, plans made while the table was empty and analyzed (default plan cache mode:
     * after five executions the server keeps a generic plan), the table grown to {@value #GROWN}
     * rows, duplicates do not scan it.
     */
    @Test
    void aDuplicateOfOneKeyDoesNotScanATableGrownPastItsPlans() throws SQLException {
        String table = "dupguard_test_single_" + Long.toHexString(System.nanoTime());
        try (HikariDataSource one = oneConnection(null)) {
            JdbcTransactionalIdempotency own = JdbcTransactionalIdempotency.of(emptyAnalyzed(one, table));
            for (int round = 0; round < 3; round++) {
                single(own, one, "e" + round);
            }
            fill(one, table, GROWN);
            long before = flushedSeqScans(one, table);
            single(own, one, "g");
            assertThat(flushedSeqScans(one, table) - before).isZero();
        } finally {
            execute("DROP TABLE IF EXISTS " + table);
        }
    }

    /** Ten keys, each executed twice (the second call a duplicate), a commit per key. */
    private static void single(JdbcTransactionalIdempotency own, DataSource one, String scope) throws SQLException {
        try (Connection c = one.getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < 10; i++) {
                for (int k = 0; k < 2; k++) { // the second call is a duplicate
                    own.<Void, SQLException>execute(
                            c,
                            IdempotencyKey.of(scope, "m" + i),
                            io.dupguard.idempotency.Fingerprint.none(),
                            Void.class,
                            x -> null);
                }
                c.commit();
            }
        }
    }

    /** Every batch statement, in the caller's transaction ({@code own}) and in autocommit ({@code store}). */
    private static void rounds(
            JdbcTransactionalIdempotency own, JdbcIdempotencyStore store, DataSource one, String scope)
            throws SQLException {
        try (Connection c = one.getConnection()) {
            c.setAutoCommit(false);
            every(own, c, scope);
            c.commit();
        }
        List<BatchEntry> fresh = batch(scope + "a", 0, 100);
        List<BatchEntry> half = batch(scope + "a", 50, 150);
        for (List<BatchEntry> b : List.of(fresh, half)) {
            List<Claim> claims = store.claimAll(b, "owner-" + scope, Duration.ofMinutes(1));
            List<BatchCompletion> done = new ArrayList<>();
            for (int i = 0; i < b.size(); i++) {
                if (claims.get(i) == Claim.FRESH) {
                    done.add(new BatchCompletion(
                            b.get(i).key(), b.get(i).fingerprint(), RecordStatus.COMPLETED, new byte[] {1}));
                }
            }
            assertThat(store.completeAll(done, "owner-" + scope, Duration.ofMinutes(1)))
                    .isEmpty();
        }
        List<BatchEntry> failed = batch(scope + "r", 0, 100);
        assertThat(store.claimAll(failed, "owner-" + scope, Duration.ofMinutes(1)))
                .allMatch(Claim.FRESH::equals);
        store.releaseAll(failed.stream().map(BatchEntry::key).toList(), "owner-" + scope);
    }

    /** The server's count of sequential scans of {@code table}, every session's statistics flushed. */
    private static long flushedSeqScans(DataSource one, String table) throws SQLException {
        try (Connection c = one.getConnection();
                Statement st = c.createStatement()) {
            st.execute("SELECT pg_stat_force_next_flush()"); // this session's counts, once it is idle
            st.execute("SELECT pg_stat_clear_snapshot()");
            try (ResultSet rs =
                    st.executeQuery("SELECT seq_scan FROM pg_stat_user_tables WHERE relname = '" + table + "'")) {
                assertThat(rs.next()).isTrue();
                return rs.getLong(1);
            }
        }
    }

    /**
     * A store on its own new table, analyzed while empty (zero pages, zero rows: a sequential scan
     * costs nothing), autovacuum off for it so that no analyze replaces the plans made on it.
     */
    private static JdbcIdempotencyStore emptyAnalyzed(DataSource ds, String table) throws SQLException {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                .tableName(table)
                .createSchemaIfMissing(true)
                .build();
        store.dialect();
        execute(ds, "ALTER TABLE " + table + " SET (autovacuum_enabled = false)");
        execute(ds, "ANALYZE " + table);
        return store;
    }

    /** Each batch statement once or more: claims of new and of recorded keys, completion, release. */
    private static void every(JdbcTransactionalIdempotency tx, Connection c, String scope) throws SQLException {
        complete(tx, c, batch(scope, 0, 100), String.class, "ok"); // claim + completion of new keys
        complete(tx, c, batch(scope, 50, 150), String.class, "ok"); // half of them recorded: read
        release(tx, c, batch(scope + "f", 0, 100), String.class); // claim, then release
        complete(tx, c, batch(scope + "v", 0, 100), Void.class, null); // completed rows claimed
        complete(tx, c, batch(scope + "v", 50, 150), Void.class, null);
        release(tx, c, batch(scope + "fv", 0, 100), Void.class); // completed rows claimed, then deleted
    }
}

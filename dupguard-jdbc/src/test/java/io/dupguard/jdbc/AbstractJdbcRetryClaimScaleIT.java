package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.TestDatabases.Db;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The claim stays O(batch) however many finished rows the table holds: the table is filled with one
 * {@code INSERT … SELECT} (finished rows first, then due ones), and the database's own account of
 * the claim statement, run for real ({@code EXPLAIN ANALYZE} / MariaDB's {@code ANALYZE}), must
 * read the due index and touch no more rows than the batch it returns. No timing is asserted.
 *
 * <p>The default size keeps the test quick (100 000 finished, 10 000 due rows); the size
 * runs with {@code -Ddupguard.retry.scale.finished=10000000 -Ddupguard.retry.scale.pending=1000000}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcRetryClaimScaleIT {
    static final String TABLE = "retry_scale";
    static final int BATCH = 32;

    final Db db;
    final int finished = Integer.getInteger("dupguard.retry.scale.finished", 100_000);
    final int pending = Integer.getInteger("dupguard.retry.scale.pending", 10_000);
    HikariDataSource pool;
    JdbcRetryStore store;
    RetrySql sql;

    AbstractJdbcRetryClaimScaleIT(Db db) {
        this.db = db;
    }

    /** Inserts {@code n} rows: finished (SUCCEEDED, no due time) or due (PENDING, due in the past). */
    abstract String fill(int n, boolean due);

    /** The database's plan of the claim of {@link #BATCH} rows, executed. */
    abstract String analyzeClaim(Connection c) throws SQLException;

    /** Asserts that {@code plan} reads the due index and at most the batch's rows. */
    abstract void assertReadsTheBatchFromTheDueIndex(String plan);

    @BeforeAll
    void fillTable() throws SQLException {
        pool = TestDatabases.pool(db, 4);
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
        }
        store = JdbcRetryStore.builder(pool)
                .tableName(TABLE)
                .createSchemaIfMissing(true)
                .build();
        store.stats(); // creates the table
        sql = new RetrySql(store.dialect(), TABLE);
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement()) {
            st.execute(fill(finished, false));
            st.execute(fill(pending, true));
            st.execute(db == Db.POSTGRESQL ? "ANALYZE " + TABLE : "ANALYZE TABLE " + TABLE);
        }
    }

    @AfterAll
    void dropTable() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
        } finally {
            pool.close();
        }
    }

    @Test
    void theClaimReadsOnlyItsBatchFromTheDueIndex() throws SQLException {
        String plan;
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                plan = analyzeClaim(c);
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
        assertReadsTheBatchFromTheDueIndex(plan);
        // and the store's own claim takes a full batch of due rows
        assertThat(store.claim("scale", BATCH, Duration.ofMinutes(1))).hasSize(BATCH);
    }

    /** The largest number {@code pattern}'s first group takes in {@code plan}; fails if it never matches. */
    static double largest(String plan, Pattern pattern) {
        Matcher m = pattern.matcher(plan);
        double max = -1;
        while (m.find()) {
            max = Math.max(max, Double.parseDouble(m.group(1)));
        }
        assertThat(max).as("%s in the plan:%n%s", pattern, plan).isGreaterThanOrEqualTo(0);
        return max;
    }

    static String lines(ResultSet rs) throws SQLException {
        StringBuilder out = new StringBuilder();
        while (rs.next()) {
            out.append(rs.getString(1)).append('\n');
        }
        return out.toString();
    }
}

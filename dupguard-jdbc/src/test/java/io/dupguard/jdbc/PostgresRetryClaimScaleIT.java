package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PostgresRetryClaimScaleIT extends AbstractJdbcRetryClaimScaleIT {
    PostgresRetryClaimScaleIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }

    @Override
    String fill(int n, boolean due) {
        return "INSERT INTO " + TABLE
                + " (task_type, task_key, state, runs, run_base, due_at, created_at, updated_at, payload)"
                + " SELECT 'scale', md5(g::text), " + (due ? "'P', 0" : "'S', 1")
                + ", 0, " + (due ? "now() - (g % 1000) * interval '1 ms'" : "NULL")
                + ", now(), now(), '\\x'::bytea FROM generate_series(1, " + n + ") g";
    }

    @Override
    String analyzeClaim(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS) " + sql.claim)) {
            ps.setString(1, "scale");
            ps.setLong(2, 60_000);
            ps.setInt(3, BATCH);
            try (ResultSet rs = ps.executeQuery()) {
                return lines(rs);
            }
        }
    }

    /** The completion of a batch finds its rows by primary key, however many tasks are running. */
    @Test
    void theBatchCompletionReadsThePrimaryKey() throws SQLException {
        String plan;
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql.succeedAll(BATCH))) {
            ps.setString(1, "scale");
            for (int i = 0; i < BATCH; i++) {
                ps.setLong(2 + i, i + 1); // the ids, then their task keys (RetrySql.ids), then (id, runs)
                ps.setString(2 + BATCH + i, "key-" + (i + 1));
                ps.setLong(2 + 2 * BATCH + 2 * i, i + 1);
                ps.setInt(3 + 2 * BATCH + 2 * i, 1);
            }
            try (ResultSet rs = ps.executeQuery()) {
                plan = lines(rs);
            }
        }
        assertThat(plan).contains("Index Scan using " + TABLE + "_pkey").doesNotContain("Seq Scan");
    }

    @Override
    void assertReadsTheBatchFromTheDueIndex(String plan) {
        assertThat(plan)
                .contains("Index Scan using " + TABLE + "_due on " + TABLE)
                .doesNotContain("Seq Scan");
        double indexRows =
                largest(plan, Pattern.compile("Index Scan using " + TABLE + "_due .*actual time=\\S+ rows=(\\d+)"));
        assertThat(indexRows).as("rows read from the due index:%n%s", plan).isLessThanOrEqualTo(BATCH);
        // Every page the claim touched, the updated rows' index entries included: a few per row,
        // where a scan of the table would read thousands.
        double buffers = largest(plan, Pattern.compile("Buffers: shared hit=(\\d+)"))
                + (plan.contains("read=") ? largest(plan, Pattern.compile("read=(\\d+)")) : 0);
        assertThat(buffers).as("pages touched:%n%s", plan).isLessThan(30.0 * BATCH);
    }
}

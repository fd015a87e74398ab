package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.regex.Pattern;

class MariaDbRetryClaimScaleIT extends AbstractJdbcRetryClaimScaleIT {
    MariaDbRetryClaimScaleIT() {
        super(TestDatabases.Db.MARIADB);
    }

    @Override
    String fill(int n, boolean due) {
        return "INSERT INTO " + TABLE
                + " (task_type, task_key, state, runs, run_base, due_at, created_at, updated_at, payload)"
                + " SELECT 'scale', md5(seq), " + (due ? "'P', 0" : "'S', 1")
                + ", 0, " + (due ? "UTC_TIMESTAMP(6) - INTERVAL (seq % 1000) SECOND" : "NULL")
                + ", UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), x'' FROM seq_1_to_" + n;
    }

    /** The claim's locking read, run by {@code ANALYZE FORMAT=JSON} (it executes the statement). */
    @Override
    String analyzeClaim(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("ANALYZE FORMAT=JSON " + sql.claim)) {
            ps.setInt(1, BATCH);
            try (ResultSet rs = ps.executeQuery()) {
                return lines(rs);
            }
        }
    }

    @Override
    void assertReadsTheBatchFromTheDueIndex(String plan) {
        assertThat(plan).contains("\"key\": \"" + TABLE + "_due\"").doesNotContain("\"access_type\": \"ALL\"");
        double rowsRead = largest(plan, Pattern.compile("\"r_rows\": ([0-9.]+)"));
        assertThat(rowsRead).as("rows read:%n%s", plan).isLessThanOrEqualTo(BATCH);
    }
}

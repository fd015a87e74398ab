package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Pattern;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * On MariaDB and MySQL 8 (the same test with {@code -Ddupguard.mariadb.url} on a MySQL server):
 * the plan's key, and the rows the storage engine actually read for the claim, from the session's
 * {@code Handler_read_*} counters (the claim's locking read runs for real; the transaction is
 * rolled back).
 */
@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class MariaDbRetryClaimScaleIT extends AbstractJdbcRetryClaimScaleIT {
    MariaDbRetryClaimScaleIT() {
        super(TestDatabases.Db.MARIADB);
    }

    /** Numbers 0 … n-1 from a cross join of digit tables (MariaDB's sequence engine is not in MySQL). */
    @Override
    String fill(int n, boolean due) {
        StringBuilder number = new StringBuilder("0");
        StringBuilder from = new StringBuilder();
        String digits = "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4"
                + " UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)";
        long scale = 1;
        for (int i = 0; scale < n; i++, scale *= 10) {
            number.append(" + ").append(scale).append(" * d").append(i).append(".d");
            from.append(i == 0 ? "" : ", ").append(digits).append(" d").append(i);
        }
        return "INSERT INTO " + TABLE
                + " (task_type, task_key, state, runs, run_base, due_at, created_at, updated_at, payload)"
                + " SELECT 'scale', md5(seq), " + (due ? "'P', 0" : "'S', 1")
                + ", 0, " + (due ? "UTC_TIMESTAMP(6) - INTERVAL (seq % 1000) SECOND" : "NULL")
                + ", UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), x'' FROM (SELECT " + number + " AS seq FROM " + from
                + ") g WHERE seq < " + n;
    }

    @Override
    String analyzeClaim(Connection c) throws SQLException {
        String plan;
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN FORMAT=JSON " + sql.claim)) {
            ps.setInt(1, BATCH);
            try (ResultSet rs = ps.executeQuery()) {
                plan = lines(rs);
            }
        }
        long first = handlerReads(c);
        long overhead = handlerReads(c) - first; // what reading the counters itself adds
        long before = handlerReads(c);
        int claimed = 0;
        try (PreparedStatement ps = c.prepareStatement(sql.claim)) {
            ps.setInt(1, BATCH);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    claimed++;
                }
            }
        }
        long reads = handlerReads(c) - before - overhead;
        assertThat(claimed).isEqualTo(BATCH);
        return plan + "\nhandler reads: " + reads + "\n";
    }

    static long handlerReads(Connection c) throws SQLException {
        long sum = 0;
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Handler_read%'")) {
            while (rs.next()) {
                sum += rs.getLong(2);
            }
        }
        return sum;
    }

    @Override
    void assertReadsTheBatchFromTheDueIndex(String plan) {
        assertThat(plan).contains("\"key\": \"" + TABLE + "_due\"").doesNotContain("\"access_type\": \"ALL\"");
        double reads = largest(plan, Pattern.compile("handler reads: (-?\\d+)"));
        assertThat(reads).as("rows the engine read:%n%s", plan).isLessThanOrEqualTo(2.0 * BATCH);
    }
}

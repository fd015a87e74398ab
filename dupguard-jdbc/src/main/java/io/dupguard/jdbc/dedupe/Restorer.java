package io.dupguard.jdbc.dedupe;

import io.dupguard.jdbc.SqlDialect;
import io.dupguard.jdbc.UniqueViolation;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Puts a run's backed-up rows back, batch by batch (one transaction each, newest progress kept in
 * the run row so a stopped restore continues). Rows whose id is in the table again are left out.
 * The backup keeps its copies; a restored run is marked RESTORED.
 */
final class Restorer {
    private Restorer() {}

    static RestoreResult restore(Connection c, Target t, String runId) throws SQLException {
        if (!TableInfo.exists(c, t.dialect(), Target.RUNS_TABLE) || !TableInfo.exists(c, t.dialect(), t.backupTable)) {
            throw DedupeException.badInput("restore: no dedupe run has been applied to table '" + t.table() + "'");
        }
        Runs.Run run = Runs.forRestore(c, t, runId)
                .orElseThrow(() -> DedupeException.badInput(
                        runId == null
                                ? "restore: table '" + t.table() + "' has no applied run left to restore"
                                : "--run: no run '" + runId + "' for table '" + t.table() + "' in "
                                        + Target.RUNS_TABLE));
        if (Runs.RESTORED.equals(run.status())) {
            return new RestoreResult(run.id(), 0, 0);
        }
        List<Long> batches = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT dupguard_batch FROM " + t.backupTable
                + " WHERE dupguard_run = ? AND dupguard_batch > ? ORDER BY dupguard_batch")) {
            Sql.bind(ps, 1, run.id(), run.restoredBatch());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    batches.add(rs.getLong(1));
                }
            }
        }
        String cols = t.columnList(null);
        String insert = "INSERT INTO " + t.table() + " (" + cols + ")"
                + (t.dialect() == SqlDialect.POSTGRESQL ? " OVERRIDING SYSTEM VALUE" : "") + " SELECT "
                + t.columnList("b") + " FROM " + t.backupTable + " b WHERE b.dupguard_run = ? AND b.dupguard_batch = ?"
                + " AND NOT EXISTS (SELECT 1 FROM " + t.table() + " x WHERE x." + t.id() + " = b." + t.id() + ")";
        long restored = 0;
        long present = 0;
        for (long batch : batches) {
            long[] counts;
            try {
                counts = Sql.inTransaction(c, tx -> {
                    long inBackup = Sql.queryLong(
                            tx,
                            "SELECT COUNT(*) FROM " + t.backupTable + " WHERE dupguard_run = ? AND dupguard_batch = ?",
                            run.id(),
                            batch);
                    long inserted = Sql.update(tx, insert, run.id(), batch);
                    Sql.update(
                            tx,
                            "UPDATE " + Target.RUNS_TABLE + " SET restored_batch = ?, updated_ms = ? WHERE run_id = ?",
                            batch,
                            System.currentTimeMillis(),
                            run.id());
                    return new long[] {inserted, inBackup - inserted};
                });
            } catch (SQLException e) {
                if (UniqueViolation.test(e)) {
                    throw DedupeException.badInput("restore of run " + run.id() + " stopped after " + restored
                            + " rows: a unique index on table '" + t.table() + "' refuses the duplicates being put"
                            + " back; drop it first (" + e.getMessage() + ")");
                }
                throw e;
            }
            restored += counts[0];
            present += counts[1];
        }
        Sql.update(
                c,
                "UPDATE " + Target.RUNS_TABLE + " SET status = ?, updated_ms = ? WHERE run_id = ?",
                Runs.RESTORED,
                System.currentTimeMillis(),
                run.id());
        return new RestoreResult(run.id(), restored, present);
    }
}

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
        long restored = 0;
        long present = 0;
        for (long batch : batches) {
            long[] counts;
            try {
                counts = Sql.inTransaction(c, tx -> restoreBatch(tx, t, run.id(), batch));
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

    /**
     * One batch: the ids are looked up by primary key (a NOT EXISTS over the whole table lets some
     * planners scan it once per batch), then the missing rows are copied back.
     */
    private static long[] restoreBatch(Connection c, Target t, String runId, long batch) throws SQLException {
        List<Object> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT " + t.id() + " FROM " + t.backupTable + " WHERE dupguard_run = ? AND dupguard_batch = ?")) {
            Sql.bind(ps, 1, runId, batch);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1));
                }
            }
        }
        java.util.Set<Object> present = new java.util.HashSet<>();
        if (!ids.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + t.id() + " FROM " + t.table() + " WHERE "
                    + t.id() + " IN (" + Sql.marks(ids.size()) + ")")) {
                Sql.bind(ps, 1, ids);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        present.add(rs.getObject(1));
                    }
                }
            }
        }
        List<Object> missing = ids.stream().filter(id -> !present.contains(id)).toList();
        long inserted = 0;
        if (!missing.isEmpty()) {
            inserted = Sql.update(
                    c,
                    "INSERT INTO " + t.table() + " (" + t.columnList(null) + ")"
                            + (t.dialect() == SqlDialect.POSTGRESQL ? " OVERRIDING SYSTEM VALUE" : "") + " SELECT "
                            + t.columnList(null) + " FROM " + t.backupTable
                            + " WHERE dupguard_run = ? AND dupguard_batch = ? AND " + t.id() + " IN ("
                            + Sql.marks(missing.size()) + ")",
                    runId,
                    batch,
                    missing);
        }
        Sql.update(
                c,
                "UPDATE " + Target.RUNS_TABLE + " SET restored_batch = ?, updated_ms = ? WHERE run_id = ?",
                batch,
                System.currentTimeMillis(),
                runId);
        return new long[] {inserted, ids.size() - inserted};
    }
}

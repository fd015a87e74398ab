package io.dupguard.jdbc.dedupe;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * dupguard's own tables next to the target: the run log ({@value Target#RUNS_TABLE}), the plan
 * (rows to delete with their kept row, numbered) and the backup (every deleted row, with its run
 * and batch). A run is PLANNED until its last batch commits, then APPLIED; RESTORED after restore.
 */
final class Runs {
    static final String PLANNED = "PLANNED";
    static final String APPLIED = "APPLIED";
    static final String RESTORED = "RESTORED";

    private static final DateTimeFormatter RUN_ID =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    record Run(
            String id,
            String status,
            long planned,
            long conflicts,
            long totalSeq,
            long doneSeq,
            long deleted,
            long skipped,
            long restoredBatch) {}

    private Runs() {}

    static void ensureTables(Connection c, Target t) throws SQLException {
        Sql.execute(
                c,
                "CREATE TABLE IF NOT EXISTS " + Target.RUNS_TABLE + " (run_id VARCHAR(40) NOT NULL PRIMARY KEY,"
                        + " table_name VARCHAR(128) NOT NULL, key_spec VARCHAR(512) NOT NULL,"
                        + " compare_spec VARCHAR(64) NOT NULL, keep_spec VARCHAR(512) NOT NULL,"
                        + " status VARCHAR(16) NOT NULL, planned BIGINT NOT NULL, conflicts BIGINT NOT NULL,"
                        + " total_seq BIGINT NOT NULL, done_seq BIGINT NOT NULL, deleted BIGINT NOT NULL,"
                        + " skipped BIGINT NOT NULL, restored_batch BIGINT NOT NULL, created_ms BIGINT NOT NULL,"
                        + " updated_ms BIGINT NOT NULL)");
        if (!TableInfo.exists(c, t.dialect(), t.planTable)) {
            Sql.execute(
                    c,
                    "CREATE TABLE " + t.planTable + " AS SELECT " + t.id() + " AS row_pk, " + t.id() + " AS keeper_pk"
                            + " FROM " + t.table() + " WHERE 1 = 0");
            for (String col : List.of("run_id VARCHAR(40)", "seq BIGINT", "grp BIGINT", "conflict INT")) {
                Sql.execute(c, "ALTER TABLE " + t.planTable + " ADD " + col);
            }
            Sql.execute(c, "CREATE INDEX " + t.planTable + "_ix ON " + t.planTable + " (run_id, seq)");
        }
        if (!TableInfo.exists(c, t.dialect(), t.backupTable)) {
            Sql.execute(
                    c,
                    "CREATE TABLE " + t.backupTable + " AS SELECT " + t.columnList(null) + " FROM " + t.table()
                            + " WHERE 1 = 0");
            for (String col :
                    List.of("dupguard_run VARCHAR(40)", "dupguard_batch BIGINT", "dupguard_deleted_ms BIGINT")) {
                Sql.execute(c, "ALTER TABLE " + t.backupTable + " ADD " + col);
            }
            Sql.execute(
                    c, "CREATE INDEX " + t.backupTable + "_ix ON " + t.backupTable + " (dupguard_run, dupguard_batch)");
        } else {
            var have = TableInfo.columnNames(c, t.dialect(), t.backupTable);
            for (TableInfo.Column col : t.info.storedColumns()) {
                if (!have.contains(col.name().toLowerCase(java.util.Locale.ROOT))) {
                    throw DedupeException.badInput("backup table '" + t.backupTable + "' has no column '" + col.name()
                            + "' that table '" + t.table() + "' has; add it (ALTER TABLE " + t.backupTable + " ADD "
                            + col.name() + " ...) or name another backup table with --backup-table");
                }
            }
        }
    }

    static String newRunId() {
        return RUN_ID.format(Instant.now()) + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
    }

    /** Plans a new run in one transaction: the run row and every plan row, or nothing. */
    static Run plan(Connection c, Target t) throws SQLException {
        String id = newRunId();
        return Sql.inTransaction(c, tx -> {
            long now = System.currentTimeMillis();
            Sql.update(
                    tx,
                    "INSERT INTO " + Target.RUNS_TABLE + " (run_id, table_name, key_spec, compare_spec, keep_spec,"
                            + " status, planned, conflicts, total_seq, done_seq, deleted, skipped, restored_batch,"
                            + " created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0, 0, 0, ?, ?)",
                    id,
                    t.table(),
                    t.keySpec(),
                    t.compareSpec(),
                    t.keepSpec,
                    PLANNED,
                    now,
                    now);
            long total = Sql.update(
                    tx,
                    "INSERT INTO " + t.planTable + " (run_id, seq, grp, row_pk, keeper_pk, conflict) SELECT ?,"
                            + " ROW_NUMBER() OVER (ORDER BY q.dg_grp, q.dg_row), q.dg_grp, q.dg_row, q.dg_keeper,"
                            + " q.dg_conflict FROM (" + t.planSelect() + ") q",
                    id);
            long conflicts =
                    Sql.queryLong(tx, "SELECT COUNT(*) FROM " + t.planTable + " WHERE run_id = ? AND conflict = 1", id);
            Sql.update(
                    tx,
                    "UPDATE " + Target.RUNS_TABLE + " SET planned = ?, conflicts = ?, total_seq = ?, status = ?"
                            + " WHERE run_id = ?",
                    total - conflicts,
                    conflicts,
                    total,
                    total == conflicts ? APPLIED : PLANNED,
                    id);
            return new Run(id, total == conflicts ? APPLIED : PLANNED, total - conflicts, conflicts, total, 0, 0, 0, 0);
        });
    }

    /** The newest unfinished run for this table, key, comparison and keep rule. */
    static Optional<Run> unfinished(Connection c, Target t) throws SQLException {
        return find(
                c,
                " WHERE table_name = ? AND key_spec = ? AND compare_spec = ? AND keep_spec = ? AND status = ?"
                        + " ORDER BY created_ms DESC, run_id DESC",
                t.table(),
                t.keySpec(),
                t.compareSpec(),
                t.keepSpec,
                PLANNED);
    }

    /** The run with this id, or the newest run of the table that deleted rows and was not restored. */
    static Optional<Run> forRestore(Connection c, Target t, String runId) throws SQLException {
        if (runId != null) {
            return find(c, " WHERE run_id = ? AND table_name = ?", runId, t.table());
        }
        return find(
                c,
                " WHERE table_name = ? AND deleted > 0 AND status <> ? ORDER BY created_ms DESC, run_id DESC",
                t.table(),
                RESTORED);
    }

    static Run lockRun(Connection c, String runId) throws SQLException {
        return find(c, " WHERE run_id = ? FOR UPDATE", runId)
                .orElseThrow(
                        () -> DedupeException.failed("run " + runId + " vanished from " + Target.RUNS_TABLE, null));
    }

    static List<Run> all(Connection c, String table) throws SQLException {
        List<Run> runs = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(select() + " WHERE table_name = ? ORDER BY created_ms, run_id")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    runs.add(read(rs));
                }
            }
        }
        return runs;
    }

    private static Optional<Run> find(Connection c, String where, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(select() + where)) {
            Sql.bind(ps, 1, params);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(read(rs)) : Optional.empty();
            }
        }
    }

    private static String select() {
        return "SELECT run_id, status, planned, conflicts, total_seq, done_seq, deleted, skipped, restored_batch FROM "
                + Target.RUNS_TABLE;
    }

    private static Run read(ResultSet rs) throws SQLException {
        return new Run(
                rs.getString(1),
                rs.getString(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getLong(6),
                rs.getLong(7),
                rs.getLong(8),
                rs.getLong(9));
    }
}

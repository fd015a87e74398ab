package io.dupguard.jdbc.dedupe;

import io.dupguard.jdbc.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Deletes a run's planned rows in batches. Each batch is one short transaction:
 *
 * <ol>
 *   <li>lock the run row and read how far it got ({@code done_seq});
 *   <li>lock the next planned rows that still exist <i>and</i> whose kept row still exists with the
 *       same key (and the same merge-checked values) — anything else is skipped, never deleted;
 *   <li>copy exactly those rows into the backup table, tagged with the run and batch;
 *   <li>delete exactly those rows (the count must match the copy, or the batch rolls back);
 *   <li>advance {@code done_seq}, then commit.
 * </ol>
 *
 * A crash or Ctrl-C loses at most the open batch, which rolls back; the next call continues after
 * the last committed batch, so nothing is deleted twice and every deleted row is in the backup.
 */
final class Applier {
    private static final int TRANSIENT_RETRIES = 5;

    record Settings(int batchSize, Rate rate, Duration pause, Progress.Listener listener, BooleanSupplier stop) {}

    private Applier() {}

    static ApplyResult dryRun(Connection c, Target t) throws SQLException {
        long start = System.nanoTime();
        long total;
        long conflicts;
        try (PreparedStatement ps = c.prepareStatement(
                        "SELECT COUNT(*), COALESCE(SUM(q.dg_conflict), 0) FROM (" + t.planSelect() + ") q");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            total = rs.getLong(1);
            conflicts = rs.getLong(2);
        }
        return new ApplyResult(
                "(dry run)",
                false,
                total - conflicts,
                conflicts,
                0,
                0,
                0,
                false,
                true,
                Duration.ofNanos(System.nanoTime() - start));
    }

    static ApplyResult apply(Connection c, Target t, Settings s) throws SQLException {
        long start = System.nanoTime();
        Runs.ensureTables(c, t);
        Optional<Runs.Run> existing = Runs.unfinished(c, t);
        Runs.Run run = existing.isPresent() ? existing.get() : Runs.plan(c, t);
        long handledAtStart = run.doneSeq();
        long unitsDone = 0;
        // The rate counts from the first batch: planning must not bank an allowance for a burst.
        long paceStart = System.nanoTime();
        long batches = 0;
        while (run.doneSeq() < run.totalSeq() && !s.stop().getAsBoolean()) {
            long batch = batches + 1;
            BatchOutcome outcome = runBatch(c, t, run.id(), s.batchSize(), batch);
            run = outcome.run();
            batches++;
            unitsDone += s.rate().keys() ? outcome.keys() : outcome.rows();
            double seconds = (System.nanoTime() - paceStart) / 1e9;
            double rowsPerSecond = (run.doneSeq() - handledAtStart) / Math.max(seconds, 1e-9);
            long left = run.totalSeq() - run.doneSeq();
            Optional<Duration> eta = rowsPerSecond > 0
                    ? Optional.of(Duration.ofMillis((long) (left / rowsPerSecond * 1000)))
                    : Optional.empty();
            s.listener()
                    .onBatch(new Progress(run.id(), run.doneSeq(), run.totalSeq(), run.deleted(), rowsPerSecond, eta));
            if (run.doneSeq() < run.totalSeq() && !pace(paceStart, unitsDone, s)) {
                break;
            }
        }
        return new ApplyResult(
                run.id(),
                existing.isPresent(),
                run.planned(),
                run.conflicts(),
                run.deleted(),
                run.skipped(),
                batches,
                run.doneSeq() >= run.totalSeq(),
                false,
                Duration.ofNanos(System.nanoTime() - start));
    }

    /**
     * Sleeps until the rate allows the next batch, in short slices so that a stop request (Ctrl-C)
     * is seen at once even at a rate of a few keys a minute; false if stopped or interrupted.
     */
    private static boolean pace(long start, long unitsDone, Settings s) {
        long waitNanos = s.pause().toNanos();
        if (!s.rate().unlimited()) {
            long due = start + (long) (unitsDone / s.rate().perSecond() * 1e9);
            waitNanos = Math.max(waitNanos, due - System.nanoTime());
        }
        long until = System.nanoTime() + waitNanos;
        try {
            for (long left = waitNanos; left > 0; left = until - System.nanoTime()) {
                if (s.stop().getAsBoolean()) {
                    return false;
                }
                long slice = Math.min(left, 100_000_000L);
                Thread.sleep(slice / 1_000_000, (int) (slice % 1_000_000));
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private record BatchOutcome(Runs.Run run, long rows, long keys) {}

    private static BatchOutcome runBatch(Connection c, Target t, String runId, int batchSize, long batchNo)
            throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return Sql.inTransaction(c, tx -> batch(tx, t, runId, batchSize, batchNo));
            } catch (SQLException e) {
                if (!Sql.isTransient(e) || attempt >= TRANSIENT_RETRIES) {
                    throw e;
                }
            }
        }
    }

    private static BatchOutcome batch(Connection c, Target t, String runId, int batchSize, long batchNo)
            throws SQLException {
        Runs.Run run = Runs.lockRun(c, runId);
        long from = run.doneSeq();
        long to = Math.min(run.totalSeq(), from + batchSize);
        long rows;
        long keys;
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*), COUNT(DISTINCT grp) FROM " + t.planTable
                + " WHERE run_id = ? AND seq > ? AND seq <= ? AND conflict = 0")) {
            Sql.bind(ps, 1, runId, from, to);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                rows = rs.getLong(1);
                keys = rs.getLong(2);
            }
        }
        List<Object> ids = lockDeletable(c, t, runId, from, to);
        // Backup tags a batch by run-wide sequence so that restore can go batch by batch.
        long tag = to;
        if (!ids.isEmpty()) {
            int copied = Sql.update(
                    c,
                    "INSERT INTO " + t.backupTable + " (" + t.columnList(null)
                            + ", dupguard_run, dupguard_batch, dupguard_deleted_ms) SELECT " + t.columnList(null)
                            + ", ?, ?, ? FROM " + t.table() + " WHERE " + t.id() + " IN (" + Sql.marks(ids.size())
                            + ")",
                    runId,
                    tag,
                    System.currentTimeMillis(),
                    ids);
            int deleted = Sql.update(
                    c, "DELETE FROM " + t.table() + " WHERE " + t.id() + " IN (" + Sql.marks(ids.size()) + ")", ids);
            if (copied != ids.size() || deleted != ids.size()) {
                throw DedupeException.failed(
                        "batch " + batchNo + " of run " + runId + " locked " + ids.size() + " rows but copied " + copied
                                + " and deleted " + deleted + "; rolled back, nothing deleted",
                        null);
            }
        }
        long skipped = rows - ids.size();
        long done = to;
        String status = done >= run.totalSeq() ? Runs.APPLIED : Runs.PLANNED;
        Sql.update(
                c,
                "UPDATE " + Target.RUNS_TABLE + " SET done_seq = ?, deleted = deleted + ?, skipped = skipped + ?,"
                        + " status = ?, updated_ms = ? WHERE run_id = ?",
                done,
                ids.size(),
                skipped,
                status,
                System.currentTimeMillis(),
                runId);
        Runs.Run after = new Runs.Run(
                run.id(),
                status,
                run.planned(),
                run.conflicts(),
                run.totalSeq(),
                done,
                run.deleted() + ids.size(),
                run.skipped() + skipped,
                run.restoredBatch());
        return new BatchOutcome(after, rows, keys);
    }

    /**
     * Locks (FOR UPDATE) the planned rows of {@code (from, to]} that may still be deleted: the row
     * exists, its kept row exists, both still have the same key and the same merge-checked values.
     * Ordered by id so that concurrent batches and writers lock in one order.
     */
    private static List<Object> lockDeletable(Connection c, Target t, String runId, long from, long to)
            throws SQLException {
        String id = t.id();
        String sql = "SELECT d." + id + " FROM " + t.planTable + " p JOIN " + t.table() + " d ON d." + id
                + " = p.row_pk JOIN " + t.table() + " k ON k." + id + " = p.keeper_pk AND " + t.keysMatch("k", "d")
                + " AND " + t.mergeMatch("k", "d") + " WHERE p.run_id = ? AND p.seq > ? AND p.seq <= ?"
                + " AND p.conflict = 0 ORDER BY d." + id
                + (t.dialect() == SqlDialect.POSTGRESQL ? " FOR UPDATE OF d, k" : " FOR UPDATE");
        List<Object> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Sql.bind(ps, 1, runId, from, to);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1));
                }
            }
        }
        return ids;
    }
}

package io.dupguard.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.UniqueViolation;
import io.dupguard.jdbc.dedupe.ApplyResult;
import io.dupguard.jdbc.dedupe.Comparison;
import io.dupguard.jdbc.dedupe.Dedupe;
import io.dupguard.jdbc.dedupe.DedupeException;
import io.dupguard.jdbc.dedupe.GuardResult;
import io.dupguard.jdbc.dedupe.Keep;
import io.dupguard.jdbc.dedupe.Rate;
import io.dupguard.jdbc.dedupe.RestoreResult;
import io.dupguard.jdbc.dedupe.ScanReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;

/**
 * Benchmark of {@code dupguard dedupe} (SPEC C1) on PostgreSQL and MariaDB, for tables of 1 M and
 * 10 M rows with 3 % duplicates (groups of 2–5, a third of the extras differing only by case),
 * while 4 naive writers (own pool each, select-then-insert, 3 % concurrent duplicates) keep
 * inserting. Measures scan rows/s, apply rows/s at the default rate and without a limit, the
 * guard's time, restore, and the writers' p99 per phase; next to hand-written ceilings in the same
 * run: a bare {@code GROUP BY}, one {@code DELETE … WHERE id IN (window query)} without backup or
 * batches, and a bare unique index build without writers. Writes the section "Duplicate clean-up"
 * of {@code docs/benchmarks.md}.
 *
 * <p>Run: {@code scripts/bench-dedupe} (or {@code scripts/bench-dedupe --sizes 1000000 --targets
 * postgresql}).
 */
public final class DedupeBench {
    enum Phase {
        IDLE("writers alone"),
        SCAN("scan"),
        APPLY_DEFAULT("apply, default rate"),
        APPLY_UNLIMITED("apply, no limit"),
        GUARD("guard");

        final String label;

        Phase(String label) {
            this.label = label;
        }
    }

    record Row(
            String target,
            long rows,
            long duplicates,
            ScanReport scan,
            double scanCeilingSeconds,
            double planSeconds,
            double defaultRowsPerSecond,
            double unlimitedRowsPerSecond,
            double guardSeconds,
            GuardResult guard,
            double bareIndexSeconds,
            double restoreRowsPerSecond,
            double handDeleteRowsPerSecond,
            Map<Phase, double[]> writers) {}

    private DedupeBench() {}

    public static void main(String[] args) throws Exception {
        List<String> targets = List.of("postgresql", "mariadb");
        List<Long> sizes = List.of(1_000_000L, 10_000_000L);
        Duration defaultWindow = Duration.ofSeconds(10);
        Path out = Path.of("docs/benchmarks.md");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--targets" -> targets = List.of(args[++i].split(","));
                case "--sizes" ->
                    sizes = java.util.Arrays.stream(args[++i].split(","))
                            .map(Long::parseLong)
                            .toList();
                case "--default-window" -> defaultWindow = Duration.ofSeconds(Long.parseLong(args[++i]));
                case "--out" -> out = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: DedupeBench [--targets postgresql,mariadb] [--sizes 1000000,10000000]"
                            + " [--default-window SECONDS] [--out docs/benchmarks.md]");
                    System.exit(2);
                }
            }
        }
        Instant started = Instant.now();
        Map<String, String> machine = MachineInfo.collect();
        List<Row> rows = new ArrayList<>();
        for (String target : targets) {
            for (long size : sizes) {
                System.err.printf(Locale.ROOT, "dedupe bench: %s, %,d rows%n", target, size);
                rows.add(run(target, size, defaultWindow));
                System.err.println("  " + rows.get(rows.size() - 1));
            }
        }
        machine.put("Load average 1/5/15 min at end", MachineInfo.loadAverage());
        write(out, rows, machine, started, defaultWindow);
    }

    private static String url(String target) {
        return target.startsWith("p")
                ? System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres")
                : System.getProperty("dupguard.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");
    }

    private static HikariDataSource pool(String url, int size) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setMaximumPoolSize(size);
        c.setConnectionTimeout(30_000);
        return new HikariDataSource(c);
    }

    static final String TABLE = "bench_dedupe";

    private static Row run(String target, long size, Duration defaultWindow) throws Exception {
        boolean pg = target.startsWith("p");
        String url = url(target);
        long base = size * 97 / 100;
        long groups = size * 12 / 1000;
        try (HikariDataSource ds = pool(url, 4)) {
            load(ds, pg, base, groups);
            Dedupe.Builder builder = Dedupe.builder(ds)
                    .table(TABLE)
                    .key("open_id")
                    .compare(Comparison.IGNORE_CASE)
                    .keep(Keep.oldest("created_at"))
                    .guardMaxCleanRows(Long.MAX_VALUE);
            Dedupe defaults = builder.build();
            Dedupe unlimited = builder.rate(Rate.UNLIMITED).batchSize(2000).build();
            Writers writers = new Writers(url, pg ? "LOWER(open_id) = LOWER(?)" : "open_id = ?", 4, 0.03);
            ScanReport scan;
            double scanCeiling;
            double planSeconds;
            double defaultRate;
            double unlimitedRate;
            double guardSeconds;
            GuardResult guard;
            try (writers) {
                writers.measure(Phase.IDLE, Duration.ofSeconds(5));
                writers.phase(Phase.SCAN);
                scanCeiling = bareGroupBy(ds, pg);
                scan = defaults.scan();
                writers.phase(Phase.APPLY_DEFAULT);
                // The rate counts from the first committed batch: planning (one pass over the table)
                // is reported on its own.
                long applyStart = System.nanoTime();
                long[] first = new long[2];
                long[] last = new long[2];
                ApplyResult slow = defaults.apply(
                        p -> {
                            long now = System.nanoTime();
                            if (first[0] == 0) {
                                first[0] = now;
                                first[1] = p.deleted();
                            }
                            last[0] = now;
                            last[1] = p.deleted();
                        },
                        () -> first[0] != 0 && System.nanoTime() - first[0] > defaultWindow.toNanos());
                planSeconds = (first[0] - applyStart) / 1e9;
                defaultRate = (last[1] - first[1]) / Math.max(1e-9, (last[0] - first[0]) / 1e9);
                writers.phase(Phase.APPLY_UNLIMITED);
                ApplyResult fast = unlimited.apply(p -> {}, () -> false);
                unlimitedRate = (fast.deleted() - slow.deleted()) / seconds(fast.elapsed());
                writers.phase(Phase.GUARD);
                long g0 = System.nanoTime();
                guard = unlimited.guard();
                guardSeconds = (System.nanoTime() - g0) / 1e9;
                writers.phase(null);
            }
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                long t0;
                s.execute(pg ? "DROP INDEX " + guard.index() : "ALTER TABLE " + TABLE + " DROP INDEX " + guard.index());
                t0 = System.nanoTime();
                s.execute(
                        pg
                                ? "CREATE UNIQUE INDEX CONCURRENTLY " + guard.index() + " ON " + TABLE
                                        + " ((LOWER(open_id)))"
                                : "ALTER TABLE " + TABLE + " ADD UNIQUE INDEX " + guard.index()
                                        + " (open_id), ALGORITHM=INPLACE, LOCK=NONE");
                double bare = (System.nanoTime() - t0) / 1e9;
                s.execute(pg ? "DROP INDEX " + guard.index() : "ALTER TABLE " + TABLE + " DROP INDEX " + guard.index());
                t0 = System.nanoTime();
                long restoredRows = 0;
                while (true) { // every run: the apply's and the guard's clean-up
                    try {
                        RestoreResult restored = defaults.restore(null);
                        restoredRows += restored.restored();
                    } catch (DedupeException e) {
                        break;
                    }
                }
                double restoreRate = restoredRows / ((System.nanoTime() - t0) / 1e9);
                double handRate = handWrittenBatches(c, pg);
                drop(s);
                return new Row(
                        pg ? "PostgreSQL" : "MariaDB",
                        size,
                        scan.rowsToDelete(),
                        scan,
                        scanCeiling,
                        planSeconds,
                        defaultRate,
                        unlimitedRate,
                        guardSeconds,
                        guard,
                        bare,
                        restoreRate,
                        handRate,
                        writers.p99s());
            }
        }
    }

    /**
     * The hand-written ceiling of apply: the ids to delete from one window query, then DELETE … IN
     * (2000 ids) per autocommit statement — no plan table, no backup, no check of the kept row.
     */
    private static double handWrittenBatches(Connection c, boolean pg) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY "
                        + (pg ? "LOWER(open_id)" : "open_id") + " ORDER BY created_at, id) AS rn FROM " + TABLE
                        + " WHERE open_id IS NOT NULL) x WHERE x.rn > 1")) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        long t0 = System.nanoTime(); // like apply's rate: the deletes, not the query that found them
        long deleted = 0;
        for (int from = 0; from < ids.size(); from += 2000) {
            List<Long> batch = ids.subList(from, Math.min(ids.size(), from + 2000));
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + TABLE + " WHERE id IN ("
                    + String.join(", ", java.util.Collections.nCopies(batch.size(), "?")) + ")")) {
                for (int i = 0; i < batch.size(); i++) {
                    ps.setLong(i + 1, batch.get(i));
                }
                deleted += ps.executeUpdate();
            }
        }
        return deleted / ((System.nanoTime() - t0) / 1e9);
    }

    /** The hand-written ceiling of a scan: one GROUP BY, nothing else. */
    private static double bareGroupBy(HikariDataSource ds, boolean pg) throws SQLException {
        String key = pg ? "LOWER(open_id)" : "open_id";
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            long t0 = System.nanoTime();
            try (ResultSet rs = s.executeQuery("SELECT " + key + ", COUNT(*) FROM " + TABLE
                    + " WHERE open_id IS NOT NULL GROUP BY " + key + " HAVING COUNT(*) > 1")) {
                while (rs.next()) {
                    // drain
                }
            }
            return (System.nanoTime() - t0) / 1e9;
        }
    }

    private static double seconds(Duration d) {
        return Math.max(1e-9, d.toNanos() / 1e9);
    }

    private static void drop(Statement s) throws SQLException {
        for (String t : new String[] {TABLE + "_dedupe_backup", TABLE + "_dedupe_plan", TABLE}) {
            s.execute("DROP TABLE IF EXISTS " + t);
        }
        try {
            s.execute("DELETE FROM dupguard_dedupe_runs WHERE table_name = '" + TABLE + "'");
        } catch (SQLException e) {
            // no runs table yet
        }
    }

    private static void load(HikariDataSource ds, boolean pg, long base, long groups) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            drop(s);
            s.execute("CREATE TABLE " + TABLE + " (id " + (pg ? "BIGSERIAL" : "BIGINT AUTO_INCREMENT")
                    + " PRIMARY KEY, open_id VARCHAR(64), local_identifier VARCHAR(64), created_at "
                    + (pg ? "TIMESTAMP" : "DATETIME(6)") + " NOT NULL)");
            if (pg) {
                s.execute("INSERT INTO " + TABLE + " (open_id, local_identifier, created_at) SELECT 'oid-' || g,"
                        + " 'li-' || g, TIMESTAMP '2026-01-01' + g * INTERVAL '1 second' FROM generate_series(1, "
                        + base + ") g");
                s.execute("INSERT INTO " + TABLE + " (open_id, local_identifier, created_at) SELECT CASE WHEN e % 3"
                        + " = 0 THEN UPPER('oid-' || (g * 80)) ELSE 'oid-' || (g * 80) END, 'li-' || (g * 80),"
                        + " TIMESTAMP '2026-06-01' + g * INTERVAL '1 second' + e * INTERVAL '1 millisecond' FROM"
                        + " generate_series(1, " + groups + ") g, generate_series(1, 4) e WHERE e <= 1 + g % 4");
                s.execute("CREATE INDEX " + TABLE + "_lookup ON " + TABLE + " (LOWER(open_id))");
                s.execute("VACUUM ANALYZE " + TABLE);
                s.execute("CHECKPOINT");
            } else {
                s.execute("INSERT INTO " + TABLE + " (open_id, local_identifier, created_at) SELECT CONCAT('oid-',"
                        + " seq), CONCAT('li-', seq), TIMESTAMP '2026-01-01 00:00:00' + INTERVAL seq SECOND FROM"
                        + " seq_1_to_" + base);
                s.execute("INSERT INTO " + TABLE + " (open_id, local_identifier, created_at) SELECT CASE WHEN e.seq"
                        + " % 3 = 0 THEN UPPER(CONCAT('oid-', g.seq * 80)) ELSE CONCAT('oid-', g.seq * 80) END,"
                        + " CONCAT('li-', g.seq * 80), TIMESTAMP '2026-06-01 00:00:00' + INTERVAL g.seq SECOND"
                        + " + INTERVAL e.seq * 1000 MICROSECOND FROM seq_1_to_" + groups + " g JOIN seq_1_to_4 e"
                        + " ON e.seq <= 1 + g.seq % 4");
                s.execute("CREATE INDEX " + TABLE + "_lookup ON " + TABLE + " (open_id)");
                s.execute("ANALYZE TABLE " + TABLE);
            }
        }
    }

    /** Naive select-then-insert writers, each on its own one-connection pool; p99 per phase. */
    static final class Writers implements AutoCloseable {
        private final List<HikariDataSource> pools = new ArrayList<>();
        private final List<Thread> threads = new ArrayList<>();
        private final Map<Phase, Recorder> recorders = new EnumMap<>(Phase.class);
        private final Map<Phase, double[]> results = new EnumMap<>(Phase.class);
        private final AtomicLong sequence = new AtomicLong();
        private volatile Phase phase = Phase.IDLE;
        private volatile boolean stop;
        private final String select;
        private final double hotShare;

        Writers(String url, String lookup, int n, double hotShare) {
            this.select = "SELECT id FROM " + TABLE + " WHERE " + lookup;
            this.hotShare = hotShare;
            for (Phase p : Phase.values()) {
                recorders.put(p, new Recorder(3));
            }
            for (int i = 0; i < n; i++) {
                HikariDataSource pool = pool(url, 1);
                pools.add(pool);
                Thread t = new Thread(() -> loop(pool), "bench-writer-" + i);
                threads.add(t);
                t.start();
            }
        }

        void measure(Phase p, Duration d) throws InterruptedException {
            phase(p);
            Thread.sleep(d.toMillis()); // a measurement window, not a wait for an outcome
        }

        void phase(Phase next) {
            Phase previous = phase;
            phase = next;
            if (previous != null) {
                var h = recorders.get(previous).getIntervalHistogram();
                results.put(
                        previous,
                        new double[] {h.getValueAtPercentile(99) / 1e6, h.getMaxValue() / 1e6, h.getTotalCount()});
            }
        }

        Map<Phase, double[]> p99s() {
            return results;
        }

        private void loop(HikariDataSource pool) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (!stop) {
                long n = sequence.incrementAndGet();
                String key = random.nextDouble() >= hotShare ? "w-" + n : "h-" + (n / 64);
                Phase at = phase;
                long start = System.nanoTime();
                try (Connection c = pool.getConnection()) {
                    boolean exists;
                    try (PreparedStatement ps = c.prepareStatement(select)) {
                        ps.setString(1, key);
                        try (ResultSet rs = ps.executeQuery()) {
                            exists = rs.next();
                        }
                    }
                    if (!exists) {
                        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE
                                + " (open_id, local_identifier, created_at) VALUES (?, 'writer', ?)")) {
                            ps.setString(1, key);
                            ps.setTimestamp(2, Timestamp.from(Instant.now()));
                            ps.executeUpdate();
                        } catch (SQLException e) {
                            if (!UniqueViolation.test(e)) {
                                throw e;
                            }
                        }
                    }
                } catch (SQLException e) {
                    System.err.println("writer: " + e.getMessage());
                }
                if (at != null) {
                    recorders.get(at).recordValue(System.nanoTime() - start);
                }
            }
        }

        @Override
        public void close() {
            stop = true;
            try {
                for (Thread t : threads) {
                    t.join();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            pools.forEach(HikariDataSource::close);
        }
    }

    private static void write(Path out, List<Row> rows, Map<String, String> machine, Instant started, Duration window)
            throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("## Duplicate clean-up\n\n");
        md.append("`dupguard dedupe` (SPEC C1, [dedupe.md](dedupe.md)) on a table of N rows with 3 % duplicates in")
                .append(" groups of 2–5 (a third differing only by case; `--compare ignore-case`, `--keep")
                .append(" oldest:created_at`), while 4 naive writers (one connection each, select-then-insert,")
                .append(" 3 % concurrent duplicates) keep inserting. Written by `scripts/bench-dedupe`.\n\n");
        md.append("Command: `scripts/bench-dedupe` — started ").append(started).append(".\n\n");
        md.append("| machine | |\n|---|---|\n");
        machine.forEach(
                (k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        md.append(
                        "\n| database | rows | duplicates | scan rows/s | bare GROUP BY rows/s | plan s | apply rows/s, default rate")
                .append(" (1000/s, ")
                .append(window.toSeconds())
                .append(
                        " s) | apply rows/s, no limit (batch 2000) | hand-written batches, no backup, rows/s | guard s | bare")
                .append(" unique index s (no writers) | restore rows/s |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %,d | %,d | %,.0f | %,.0f | %.1f | %,.0f | %,.0f | %,.0f | %.1f | %.1f | %,.0f |%n",
                    r.target(),
                    r.rows(),
                    r.duplicates(),
                    r.scan().rowsPerSecond(),
                    r.scan().rowsScanned() / r.scanCeilingSeconds(),
                    r.planSeconds(),
                    r.defaultRowsPerSecond(),
                    r.unlimitedRowsPerSecond(),
                    r.handDeleteRowsPerSecond(),
                    r.guardSeconds(),
                    r.bareIndexSeconds(),
                    r.restoreRowsPerSecond()));
        }
        md.append("\nWriters' select-then-insert latency, p99 / max in ms (and operations measured), per phase:\n\n");
        md.append("| database | rows |");
        for (Phase p : Phase.values()) {
            md.append(' ').append(p.label).append(" |");
        }
        md.append("\n|---|---:|").append("---:|".repeat(Phase.values().length)).append('\n');
        for (Row r : rows) {
            md.append("| ").append(r.target()).append(String.format(Locale.ROOT, " | %,d |", r.rows()));
            for (Phase p : Phase.values()) {
                double[] v = r.writers().get(p);
                md.append(v == null ? " – |" : String.format(Locale.ROOT, " %.1f / %.0f (%,.0f) |", v[0], v[1], v[2]));
            }
            md.append('\n');
        }
        md.append("\nGuard details: ");
        for (Row r : rows) {
            md.append(String.format(
                    Locale.ROOT,
                    "%s %,d rows: %d build(s), %d duplicate rows inserted by the writers during guard cleaned; ",
                    r.target(),
                    r.rows(),
                    r.guard().attempts(),
                    r.guard().raceRowsDeleted()));
        }
        md.append("\n\n");
        String doc = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "# Benchmarks\n";
        int start = doc.indexOf("## Duplicate clean-up");
        if (start < 0) {
            doc = doc.stripTrailing() + "\n\n" + md;
        } else {
            int end = doc.indexOf("\n## ", start + 3);
            String notes = "";
            int handNotes = doc.indexOf("### Notes (written by hand)", start);
            if (handNotes >= 0 && (end < 0 || handNotes < end)) {
                notes = doc.substring(handNotes, end < 0 ? doc.length() : end + 1);
            }
            doc = doc.substring(0, start) + md + notes + (end < 0 ? "" : doc.substring(end + 1));
        }
        Files.writeString(out, doc, StandardCharsets.UTF_8);
        System.err.println("wrote " + out);
    }
}

package io.dupguard.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.bench.harness.Cli;
import io.dupguard.bench.harness.CommonOptions;
import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.jdbc.dedupe.ApplyResult;
import io.dupguard.jdbc.dedupe.Comparison;
import io.dupguard.jdbc.dedupe.Dedupe;
import io.dupguard.jdbc.dedupe.DedupeException;
import io.dupguard.jdbc.dedupe.GuardResult;
import io.dupguard.jdbc.dedupe.Keep;
import io.dupguard.jdbc.dedupe.Rate;
import io.dupguard.jdbc.dedupe.RestoreResult;
import io.dupguard.jdbc.dedupe.ScanReport;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Benchmark of {@code dupguard dedupe} (guarantee C1) on PostgreSQL and MariaDB, for tables of 1 M and
 * 10 M rows with 3 % duplicates (groups of 2–5, a third of the extras differing only by case),
 * while 4 naive writers (own pool each, select-then-insert, 3 % concurrent duplicates) keep
 * inserting. Measures scan rows/s, apply rows/s at the default rate and without a limit, the
 * guard's time, restore, and the writers' p99 per phase; next to hand-written ceilings in the same
 * run: a bare {@code GROUP BY}, one {@code DELETE … WHERE id IN (window query)} without backup or
 * batches, and a bare unique index build without writers. Writes the section "Duplicate clean-up"
 * of {@code docs/benchmarks-dedupe.md}.
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

    /** Command-line options of {@code scripts/bench-dedupe}. */
    @Command(
            name = "scripts/bench-dedupe",
            mixinStandardHelpOptions = true,
            description = "Benchmarks `dupguard dedupe` on PostgreSQL and MariaDB while naive writers keep inserting.")
    static final class Options {
        @Option(
                names = "--targets",
                paramLabel = "LIST",
                split = ",",
                description = "postgresql, mariadb (default both)")
        List<String> targets = List.of("postgresql", "mariadb");

        @Option(
                names = "--sizes",
                paramLabel = "LIST",
                split = ",",
                description = "table sizes in rows (default 1000000,10000000)")
        List<Long> sizes = List.of(1_000_000L, 10_000_000L);

        @Option(
                names = "--default-window",
                paramLabel = "SECONDS",
                converter = CommonOptions.AtLeastOne.class,
                description = "how long apply runs at the default rate (default ${DEFAULT-VALUE})")
        int defaultWindowSeconds = 10;

        @Option(
                names = "--out",
                paramLabel = "FILE",
                description = "the report whose section is rewritten (default ${DEFAULT-VALUE})")
        Path out = Path.of("docs/benchmarks-dedupe.md");
    }

    public static void main(String[] args) throws Exception {
        System.exit(Cli.run(new Options(), args, o -> {
            run(o.targets, o.sizes, Duration.ofSeconds(o.defaultWindowSeconds), o.out);
            return 0;
        }));
    }

    private static void run(List<String> targets, List<Long> sizes, Duration defaultWindow, Path out) throws Exception {
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
        DedupeReport.write(out, rows, machine, started, defaultWindow);
    }

    private static String url(String target) {
        return target.startsWith("p")
                ? System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres")
                : System.getProperty("dupguard.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");
    }

    static HikariDataSource pool(String url, int size) {
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
            DedupeWriters writers = new DedupeWriters(url, pg ? "LOWER(open_id) = LOWER(?)" : "open_id = ?", 4, 0.03);
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
}

package io.dupguard.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.bench.harness.Cli;
import io.dupguard.bench.harness.CommonOptions;
import io.dupguard.bench.harness.CpuProbe;
import io.dupguard.bench.harness.ForeignLoad;
import io.dupguard.bench.harness.LoadDriver;
import io.dupguard.bench.harness.LoadOptions;
import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.bench.harness.Markdown;
import io.dupguard.bench.harness.Targets;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.PacedPurge;
import io.dupguard.jdbc.SqlDialect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Purging a backlog of expired idempotency records while the execute workload runs (issue 12:
 * "measure the purge too"). Per database: {@code --expired} expired rows (1 M by default) are put
 * into a dupguard table; the unique-key {@code execute} workload runs for {@code --duration}
 * ("before"); then it runs again while the driver's thread purges the whole backlog with {@code
 * JdbcIdempotencyStore.purgeAllExpired(--batch, --pause)} — the measured window lasts exactly as
 * long as the purge ("during"). Reported: purge rows/s, and the workload's throughput, p50/p99 and
 * server CPU per call before and during. Run it with {@code scripts/bench-purge}.
 */
public final class PurgeBench {
    static final String TABLE = "bench_purge_idem";
    static final int FILL_CHUNK = 100_000;
    static final String NOTES_MARKER =
            "<!-- notes below this line are kept when scripts/bench-purge rewrites the file -->";

    enum Target {
        POSTGRESQL,
        MARIADB;

        static Target named(String name) {
            return switch (name.trim().toLowerCase(Locale.ROOT)) {
                case "postgresql", "postgres", "pg" -> POSTGRESQL;
                case "mariadb", "mysql" -> MARIADB;
                default ->
                    throw new IllegalArgumentException(
                            "unknown target '" + name + "'; known: postgresql, mariadb, all");
            };
        }
    }

    /** Command-line options of {@code scripts/bench-purge}. */
    @Command(
            name = "scripts/bench-purge",
            mixinStandardHelpOptions = true,
            defaultValueProvider = Options.Defaults.class,
            description = "Purges N expired idempotency records in bounded batches while the execute workload runs.",
            footer = {"", "DURATION: 500ms, 3s, 1.5s, 1m, PT3S, or a plain number of seconds."})
    static final class Options extends LoadOptions {
        static final class Defaults extends CommonOptions.Defaults {
            Defaults() {
                super(Map.of(
                        "--out", "docs/benchmarks-purge.md",
                        "--mariadb-url", BenchOptions.DEFAULT_MARIADB_URL,
                        "--targets", "all",
                        "--expired", "1000000",
                        "--batch", "500",
                        "--pause", "0ms",
                        "--duty-cycle", "1",
                        "--rounds", "1"));
            }
        }

        static final class TargetName implements picocli.CommandLine.ITypeConverter<String> {
            @Override
            public String convert(String value) {
                return Targets.check(value, Target::named);
            }
        }

        @Option(
                names = "--targets",
                paramLabel = "LIST",
                split = ",",
                converter = TargetName.class,
                description = "postgresql,mariadb or all (default ${DEFAULT-VALUE})")
        List<String> targetNames = new ArrayList<>();

        @Option(
                names = "--expired",
                paramLabel = "N",
                converter = CommonOptions.AtLeastOne.class,
                description = "expired records to purge (default ${DEFAULT-VALUE})")
        int expired;

        @Option(
                names = "--batch",
                paramLabel = "N",
                converter = CommonOptions.AtLeastOne.class,
                description = "rows per purge statement (default ${DEFAULT-VALUE}, the starter's)")
        int batch;

        @Option(
                names = "--pause",
                paramLabel = "DURATION",
                converter = io.dupguard.bench.harness.DurationConverter.class,
                description = "pause between purge batches (default ${DEFAULT-VALUE})")
        Duration pause;

        @Option(
                names = "--duty-cycle",
                paramLabel = "LIST",
                split = ",",
                description = "share of the time spent deleting, one row per value: 1 runs the batches back to"
                        + " back (after --pause), below 1 paces them with PacedPurge as the starter does,"
                        + " e.g. 1,0.1 (default ${DEFAULT-VALUE})")
        List<Double> dutyCycles = new ArrayList<>();

        List<Target> targets() {
            return Targets.resolve(targetNames, Target.values(), Target::named);
        }
    }

    /** One database's result. */
    record Row(
            String database,
            double dutyCycle,
            long expired,
            long purged,
            double purgeSeconds,
            RunResult before,
            RunResult during) {
        double purgeRowsPerSecond() {
            return purgeSeconds <= 0 ? Double.NaN : purged / purgeSeconds;
        }
    }

    private PurgeBench() {}

    public static void main(String[] args) throws Exception {
        System.exit(Cli.run(new Options(), args, o -> run(o, Cli.commandLine("scripts/bench-purge", args))));
    }

    static int run(Options o, String command) throws Exception {
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Map<String, String> machine = MachineInfo.collect();
        List<Row> rows = new ArrayList<>();
        int failures = 0;
        for (double duty : o.dutyCycles) {
            PacedPurge.dutyCycle(duty); // refuses an out-of-range value before anything runs
        }
        for (Target t : o.targets()) {
            for (double duty : o.dutyCycles) {
                for (int round = 1; round <= o.common.rounds; round++) {
                    Row r = runOne(t, duty, o, round);
                    rows.add(r);
                    if (r.before().failed() || r.during().failed()) {
                        failures++;
                    }
                }
            }
        }
        machine.put("Load average 1/5/15 min at end", MachineInfo.loadAverage());
        String md = markdown(o, command, machine, rows, started, Duration.ofNanos(System.nanoTime() - t0));
        System.out.println();
        System.out.println(md);
        Path out = o.common.out();
        if (out != null) {
            Markdown.write(out, md, NOTES_MARKER);
            Cli.log("wrote " + out.toAbsolutePath());
        }
        return failures == 0 ? 0 : 1;
    }

    private static Row runOne(Target target, double duty, Options o, int round) throws Exception {
        String title = target == Target.POSTGRESQL ? "PostgreSQL" : "MariaDB";
        String url = target == Target.POSTGRESQL ? o.common.pgUrl : o.common.mariadbUrl;
        Cli.log("== " + title + ", duty cycle " + duty + ", round " + round);
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setMaximumPoolSize(o.common.poolSize);
        hc.setMinimumIdle(o.common.poolSize);
        hc.setPoolName("bench-purge-" + target.name().toLowerCase(Locale.ROOT));
        try (HikariDataSource pool = new HikariDataSource(hc)) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool)
                    .tableName(TABLE)
                    .createSchemaIfMissing(true)
                    .build();
            SqlDialect dialect = store.dialect(); // creates the table
            ForeignLoad.otherClients = () -> SqlTarget.otherClients(pool, dialect);
            try {
                execute(pool, "TRUNCATE TABLE " + TABLE);
                long t = System.nanoTime();
                fill(pool, dialect, o.expired);
                Cli.log(String.format(
                        Locale.ROOT, "  %,d expired rows in %.1f s", o.expired, (System.nanoTime() - t) / 1e9));
                BenchImpl impl = new DupguardExecute(
                        "dupguard",
                        BenchImpl.Role.DUPGUARD,
                        "Idempotency.execute over JdbcIdempotencyStore (default config), unique keys",
                        Idempotency.of(store),
                        Bench::response,
                        true,
                        () -> {});
                // Unmeasured: JIT, pool, caches.
                ExecuteLoad.run(
                        impl,
                        Workload.UNIQUE,
                        o.common.threads,
                        o.common.prewarm,
                        LoadDriver.Window.lasting(Duration.ZERO),
                        0,
                        "w" + round + "-",
                        11,
                        CpuProbe.NONE);
                RunResult before = ExecuteLoad.run(
                        impl,
                        Workload.UNIQUE,
                        o.common.threads,
                        o.common.warmup,
                        o.common.duration,
                        round,
                        "b" + round + "-",
                        12,
                        ForeignLoad.probe());
                log("before", before);
                long[] purged = {0};
                double[] seconds = {0};
                RunResult during = ExecuteLoad.run(
                        impl,
                        Workload.UNIQUE,
                        o.common.threads,
                        o.common.warmup,
                        LoadDriver.Window.during(() -> {
                            long p0 = System.nanoTime();
                            purged[0] = duty >= 1
                                    ? store.purgeAllExpired(o.batch, o.pause)
                                    : PacedPurge.dutyCycle(duty).drain(o.batch, store::purgeExpired);
                            seconds[0] = (System.nanoTime() - p0) / 1e9;
                        }),
                        round,
                        "d" + round + "-",
                        13,
                        ForeignLoad.probe());
                log("during", during);
                Cli.log(String.format(
                        Locale.ROOT,
                        "  purged %,d rows in %.1f s: %s rows/s",
                        purged[0],
                        seconds[0],
                        Markdown.ops(purged[0] / seconds[0])));
                if (purged[0] != o.expired) {
                    throw new IllegalStateException("purged " + purged[0] + " rows, expected " + o.expired);
                }
                execute(pool, "DROP TABLE " + TABLE);
                return new Row(title, duty, o.expired, purged[0], seconds[0], before, during);
            } finally {
                ForeignLoad.otherClients = null;
            }
        }
    }

    private static void log(String phase, RunResult r) {
        Cli.log(String.format(
                Locale.ROOT,
                "  %-6s %10s ops/s  p50 %8s µs  p99 %8s µs  server CPU/call %s µs  other CPU %s%s",
                phase,
                Markdown.ops(r.opsPerSecond()),
                Markdown.micros(r.p50Micros()),
                Markdown.micros(r.p99Micros()),
                Markdown.micros(r.serverCpuMicrosPerCall()),
                Markdown.percent(r.foreignCpuShare()),
                r.errors() > 0 ? "  ERRORS " + r.errors() + ": " + r.firstError() : ""));
    }

    /** {@code n} completed records whose expiry and purge time passed an hour ago, in chunks. */
    static void fill(HikariDataSource pool, SqlDialect dialect, int n) throws SQLException {
        byte[] payload = Bench.response(0).getBytes(StandardCharsets.US_ASCII);
        try (Connection c = pool.getConnection()) {
            for (int from = 1; from <= n; from += FILL_CHUNK) {
                int to = Math.min(n, from + FILL_CHUNK - 1);
                String sql =
                        switch (dialect) {
                            case POSTGRESQL ->
                                "INSERT INTO " + TABLE + " (scope, idem_key, status, fingerprint, owner, payload,"
                                        + " expires_at, purge_after) SELECT ?, 'expired-' || g, 'C', ?, NULL, ?,"
                                        + " now() - INTERVAL '1 hour', now() - INTERVAL '1 hour'"
                                        + " FROM generate_series(" + from + ", " + to + ") AS g";
                            case MYSQL ->
                                "INSERT INTO " + TABLE + " (scope, idem_key, status, fingerprint, owner, payload,"
                                        + " expires_at, purge_after) SELECT ?, CONCAT('expired-', seq), 'C', ?, NULL, ?,"
                                        + " UTC_TIMESTAMP(6) - INTERVAL 1 HOUR, UTC_TIMESTAMP(6) - INTERVAL 1 HOUR"
                                        + " FROM seq_" + from + "_to_" + to;
                            case H2 ->
                                throw new IllegalArgumentException("the purge bench runs on PostgreSQL and MariaDB");
                        };
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setString(1, Bench.SCOPE);
                    Bench.bindStoreFingerprint(ps, 2, dialect);
                    ps.setBytes(3, payload);
                    ps.executeUpdate();
                }
            }
        }
        // Statistics and (PostgreSQL) the visibility map as after any settled bulk load.
        execute(pool, dialect == SqlDialect.POSTGRESQL ? "VACUUM ANALYZE " + TABLE : "ANALYZE TABLE " + TABLE);
    }

    private static void execute(HikariDataSource pool, String sql) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    static String markdown(
            Options o, String command, Map<String, String> machine, List<Row> rows, Instant started, Duration took) {
        StringBuilder md = new StringBuilder("# Purge benchmark\n\n");
        md.append("Purging a backlog of expired idempotency records in batches of ")
                .append(o.batch)
                .append(" rows — back to back (`JdbcIdempotencyStore.purgeAllExpired`, pause ")
                .append(Markdown.duration(o.pause))
                .append(") at duty cycle 1, paced by `PacedPurge` (the starter's scheduled purge) below 1 — while ")
                .append(o.common.threads)
                .append(" client threads run `Idempotency.execute` on fresh keys against the same table. *Before*: the")
                .append(" workload alone for ")
                .append(Markdown.duration(o.common.duration))
                .append(" with the backlog in the table; *during*: the workload while the driver's thread purges,")
                .append(
                        " the measured window lasting exactly as long as the purge. Written by `scripts/bench-purge`.\n\n");
        md.append(Markdown.commandSection(command, started, took));
        md.append(Markdown.machineSection(machine, Map.of()));
        Markdown.Table t = new Markdown.Table(
                "lrrrrrrrrrrrr",
                "database",
                "duty cycle",
                "expired rows",
                "purge s",
                "purge rows/s",
                "ops/s before",
                "ops/s during",
                "p50 µs before",
                "p50 µs during",
                "p99 µs before",
                "p99 µs during",
                "server CPU µs/call before",
                "during (incl. purge)");
        for (Row r : rows) {
            t.row(
                    r.database(),
                    r.dutyCycle() >= 1 ? "1 (back to back)" : String.format(Locale.ROOT, "%.2f", r.dutyCycle()),
                    String.format(Locale.ROOT, "%,d", r.expired()),
                    String.format(Locale.ROOT, "%.1f", r.purgeSeconds()),
                    Markdown.ops(r.purgeRowsPerSecond()),
                    Markdown.ops(r.before().opsPerSecond()),
                    Markdown.ops(r.during().opsPerSecond()),
                    Markdown.micros(r.before().p50Micros()),
                    Markdown.micros(r.during().p50Micros()),
                    Markdown.micros(r.before().p99Micros()),
                    Markdown.micros(r.during().p99Micros()),
                    Markdown.micros(r.before().serverCpuMicrosPerCall()),
                    Markdown.micros(r.during().serverCpuMicrosPerCall()));
        }
        md.append("## Results\n\n").append(t).append('\n');
        Map<String, String> other = new LinkedHashMap<>();
        for (Row r : rows) {
            other.put(
                    r.database() + (r.dutyCycle() >= 1 ? "" : " at " + r.dutyCycle()),
                    "other CPU before " + Markdown.percent(r.before().foreignCpuShare()) + ", during "
                            + Markdown.percent(r.during().foreignCpuShare()));
        }
        md.append("Other processes' share of the CPU in the windows: ");
        other.forEach((k, v) -> md.append(k).append(": ").append(v).append("; "));
        md.append("\n\n").append(NOTES_MARKER).append('\n');
        return md.toString();
    }
}

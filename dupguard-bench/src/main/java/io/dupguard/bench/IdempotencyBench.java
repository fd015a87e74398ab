package io.dupguard.bench;

import io.dupguard.bench.harness.Cli;
import io.dupguard.bench.harness.CpuProbe;
import io.dupguard.bench.harness.ForeignLoad;
import io.dupguard.bench.harness.LoadDriver;
import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.bench.harness.Markdown;
import io.dupguard.bench.harness.RawRounds;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Load driver comparing dupguard's {@code execute} with the hand-written ceiling of each store and
 * with Apache Camel's {@code JdbcMessageIdRepository}. Run it with {@code scripts/bench}; {@code
 * --help} lists the options. Prints the tables and writes {@code docs/benchmarks-idempotency.md}
 * (every round: {@code docs/raw/benchmarks-idempotency.csv}).
 */
public final class IdempotencyBench {
    /** A run during which other processes used more than this share of the CPU is run again. */
    static final double DISTURBED = 0.15;

    static final int MAX_RETRIES = 1;

    private IdempotencyBench() {}

    public static void main(String[] args) throws Exception {
        System.exit(Cli.run(new BenchOptions(), args, o -> new IdempotencyBench().run(o, command(args))));
    }

    /** The command line as the report shows it. */
    static String command(String[] args) {
        return Cli.commandLine("scripts/bench", args);
    }

    /** Runs every target; returns how many stores could not be measured or had failed calls. */
    private int run(BenchOptions o, String command) throws Exception {
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Map<String, String> machine = MachineInfo.collect();
        log("machine: " + machine.get("CPU") + ", " + machine.get("Memory"));
        log("settings: " + o.threads() + " threads, " + Markdown.duration(o.prewarm()) + " prewarm per row, "
                + Markdown.duration(o.warmup()) + " warmup + "
                + Markdown.duration(o.duration()) + " measured per run, " + o.rounds() + " rounds");

        List<Report.StoreReport> stores = new ArrayList<>();
        int[] runNo = {0};
        for (BenchOptions.Target target : o.targets()) {
            stores.add(runTarget(target, o, runNo));
        }

        machine.put("Load average 1/5/15 min at end", MachineInfo.loadAverage());
        Report.Context ctx = new Report.Context(
                command,
                o,
                machine,
                started,
                Duration.ofNanos(System.nanoTime() - t0),
                stores,
                o.out() == null ? null : RawRounds.link(o.out()));
        String markdown = Report.markdown(ctx);
        RawRounds raw = Report.raw(
                ctx, o.out() == null ? "this report" : o.out().getFileName().toString());
        System.out.println();
        System.out.println(markdown);
        if (o.out() != null) {
            Path out = o.out();
            Markdown.write(out, markdown, Report.NOTES_MARKER);
            log("wrote " + out.toAbsolutePath() + " and " + RawRounds.write(out, raw));
        } else {
            System.out.println(raw);
        }
        int failures = 0;
        for (Report.StoreReport s : stores) {
            if (s.failure() != null || s.runs().stream().anyMatch(RunResult::failed)) {
                failures++;
            }
        }
        return failures;
    }

    private Report.StoreReport runTarget(BenchOptions.Target target, BenchOptions o, int[] runNo) {
        String title =
                switch (target) {
                    case MEMORY -> "memory";
                    case H2 -> "H2";
                    case POSTGRESQL -> "PostgreSQL";
                    case MARIADB -> "MariaDB";
                    case REDIS -> "Redis";
                };
        log("== " + title);
        List<AutoCloseable> toClose = new ArrayList<>();
        try {
            List<BenchImpl> impls;
            String server;
            Audit.Subject audit = null;
            switch (target) {
                case MEMORY -> {
                    impls = MemoryImpls.all(o.diagnostics());
                    server = null;
                }
                case H2, POSTGRESQL, MARIADB -> {
                    String url =
                            switch (target) {
                                case H2 -> o.h2Url();
                                case POSTGRESQL -> o.pgUrl();
                                default -> o.mariadbUrl();
                            };
                    boolean camel = target == BenchOptions.Target.POSTGRESQL
                            || (target == BenchOptions.Target.MARIADB && o.camelOnMariadb());
                    SqlTarget sql = new SqlTarget(target.id, url, o.poolSize(), camel, o.diagnostics());
                    toClose.add(sql);
                    ForeignLoad.otherClients = sql::otherClients;
                    toClose.add(() -> ForeignLoad.otherClients = null);
                    impls = sql.impls();
                    server = sql.serverVersion();
                    audit = sql.auditSubject();
                }
                case REDIS -> {
                    RedisTarget redis = new RedisTarget(o.redisUrl(), o.diagnostics());
                    toClose.add(redis);
                    impls = redis.impls();
                    server = redis.serverVersion();
                    audit = redis.auditSubject();
                }
                default -> throw new IllegalStateException(target.toString());
            }
            if (server != null) {
                log("server: " + server);
            }
            impls = impls.stream().filter(i -> o.runs(i.name())).toList();
            if (impls.isEmpty()) {
                throw new IllegalArgumentException("--rows matches no row of " + title);
            }
            List<Audit.Row> auditRows = audit == null ? List.of() : Audit.run(audit, "audit");
            for (Audit.Row a : auditRows) {
                log(String.format(
                        java.util.Locale.ROOT,
                        "  per call  %-32s unique: %s | duplicate: %s%s",
                        a.impl(),
                        a.unique(),
                        a.duplicate(),
                        a.problem() == null ? "" : "  PROBLEM: " + a.problem()));
            }
            // One unmeasured pass over every row first, so that round 1 does not pay for the JIT and
            // for filling caches of whichever row happens to run first.
            for (BenchImpl impl : o.prewarm().isZero() ? List.<BenchImpl>of() : impls) {
                impl.reset();
                int n = ++runNo[0];
                ExecuteLoad.run(
                        impl,
                        Workload.DUP50,
                        o.threads(),
                        o.prewarm(),
                        LoadDriver.Window.lasting(Duration.ZERO),
                        0,
                        "w" + n,
                        0x5EED + n,
                        CpuProbe.NONE);
            }
            log("  (every row warmed up once, unmeasured)");
            List<RunResult> runs = new ArrayList<>();
            for (int round = 1; round <= o.rounds(); round++) {
                boolean forward = round % 2 == 1;
                List<BenchImpl> order = new ArrayList<>(impls);
                List<Workload> workloads = new ArrayList<>(List.of(Workload.values()));
                if (!forward) {
                    java.util.Collections.reverse(order);
                    java.util.Collections.reverse(workloads);
                }
                for (BenchImpl impl : order) {
                    for (Workload w : workloads) {
                        if (w.racing && !impl.answersInFlight()) {
                            continue;
                        }
                        RunResult r = null;
                        for (int attempt = 0; attempt <= MAX_RETRIES; attempt++) {
                            impl.reset();
                            System.gc();
                            int n = ++runNo[0];
                            RunResult a = ExecuteLoad.run(
                                    impl,
                                    w,
                                    o.threads(),
                                    o.warmup(),
                                    o.duration(),
                                    round,
                                    "r" + n,
                                    0x5EED + n,
                                    ForeignLoad.probe());
                            if (r == null || !(a.foreignCpuShare() >= r.foreignCpuShare())) {
                                r = a;
                            }
                            if (!(a.foreignCpuShare() > DISTURBED) || attempt == MAX_RETRIES) {
                                break;
                            }
                            log(String.format(
                                    java.util.Locale.ROOT,
                                    "  round %d  %-32s %-8s other processes used %.0f %% of the CPU: again",
                                    round,
                                    impl.name(),
                                    w.label,
                                    a.foreignCpuShare() * 100));
                        }
                        runs.add(r);
                        log(String.format(
                                java.util.Locale.ROOT,
                                "  round %d  %-32s %-8s %12s ops/s  p50 %8s µs  p99 %8s µs  CPU/call %s+%s µs  replays %s  other CPU %s%s",
                                round,
                                impl.name(),
                                w.label,
                                Markdown.ops(r.opsPerSecond()),
                                Markdown.micros(r.p50Micros()),
                                Markdown.micros(r.p99Micros()),
                                Markdown.micros(r.clientCpuMicrosPerCall()),
                                Markdown.micros(r.serverCpuMicrosPerCall()),
                                Markdown.percent(r.replayShare()),
                                Markdown.percent(r.foreignCpuShare()),
                                r.errors() > 0 ? "  ERRORS " + r.errors() + ": " + r.firstError() : ""));
                    }
                }
            }
            for (BenchImpl impl : impls) {
                impl.reset();
            }
            return new Report.StoreReport(
                    title, server, impls.stream().map(Report.ImplInfo::of).toList(), runs, auditRows, null);
        } catch (Exception | LinkageError e) {
            log("  " + title + " not measured: " + e);
            return new Report.StoreReport(title, null, List.of(), List.of(), List.of(), e.toString());
        } finally {
            for (AutoCloseable c : toClose) {
                try {
                    c.close();
                } catch (Exception e) {
                    log("  closing " + title + " failed: " + e);
                }
            }
        }
    }

    private static void log(String line) {
        Cli.log(line);
    }
}

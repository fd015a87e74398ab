package io.dupguard.bench.lock;

import io.dupguard.bench.harness.Cli;
import io.dupguard.bench.harness.CpuProbe;
import io.dupguard.bench.harness.ForeignLoad;
import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.bench.harness.Markdown;
import io.dupguard.bench.harness.RawRounds;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Lock benchmark: lock + unlock throughput uncontended and acquisitions/s with the wait under
 * contention, for dupguard's lock providers next to their peers on the same servers in one JVM run
 * (Redis: hand-written ceiling, Redisson, Spring Integration; PostgreSQL and MariaDB: Spring
 * Integration, ShedLock and two hand-written ceilings, {@link LeaseRowLocks}; ZooKeeper: Curator's
 * mutex), on the harness's {@link io.dupguard.bench.harness.LoadDriver} ({@link LockLoad}). Run it with {@code scripts/bench-locks};
 * {@code --help} lists the options. Prints the tables and writes {@code docs/benchmarks-locks.md} and every
 * round to {@code docs/raw/benchmarks-locks.csv}.
 */
public final class LockBench {
    private LockBench() {}

    /** A row as the report names and describes it. */
    record ImplInfo(String name, LockImpl.Role role, String description, String waiting) {
        static ImplInfo of(LockImpl impl) {
            return new ImplInfo(impl.name(), impl.role(), impl.description(), impl.waiting());
        }
    }

    /**
     * What one row sent to its store.
     *
     * @param uncontended per lock + unlock cycle, one thread on its own name
     * @param contended per acquisition, every thread on one name
     */
    record AuditRow(String impl, Map<String, Double> uncontended, Map<String, Double> contended, String problem) {}

    /** Everything measured on one store; {@code failure} set if the store could not be benchmarked. */
    record StoreResult(
            String title,
            String server,
            String loadAverage,
            List<ImplInfo> impls,
            List<LockRun> runs,
            List<AuditRow> audit,
            String failure) {}

    public static void main(String[] args) throws Exception {
        quietLogs();
        System.exit(Cli.run(new LockBenchOptions(), args, o -> new LockBench().run(o, command(args))));
    }

    /** ZooKeeper's server and the Redis clients log every session at INFO; keep the console readable. */
    private static void quietLogs() {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
    }

    /** The command line as the report shows it. */
    static String command(String[] args) {
        return Cli.commandLine("scripts/bench-locks", args);
    }

    private int run(LockBenchOptions o, String command) throws Exception {
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Map<String, String> machine = MachineInfo.collect();
        String loadBefore = MachineInfo.loadAverage();
        log("machine: " + machine.get("CPU") + ", " + machine.get("Memory") + "; load " + loadBefore);
        log("settings: " + o.threads() + " threads, " + Markdown.duration(o.prewarm())
                + " prewarm per row and mode, " + Markdown.duration(o.warmup()) + " warmup + "
                + Markdown.duration(o.duration()) + " measured per run, " + o.rounds() + " rounds");
        List<StoreResult> stores = new ArrayList<>();
        for (LockBenchOptions.Target target : o.targets()) {
            stores.add(runStore(target, o));
        }
        LockReport.Context ctx = new LockReport.Context(
                command,
                o,
                machine,
                loadBefore,
                MachineInfo.loadAverage(),
                started,
                Duration.ofNanos(System.nanoTime() - t0),
                stores,
                o.out() == null ? null : RawRounds.link(o.out()));
        String markdown = LockReport.markdown(ctx);
        RawRounds raw = LockReport.raw(
                ctx, o.out() == null ? "this report" : o.out().getFileName().toString());
        System.out.println();
        System.out.println(markdown);
        if (o.out() != null) {
            Path out = o.out();
            Markdown.write(out, markdown, LockReport.NOTES_MARKER);
            log("wrote " + out.toAbsolutePath() + " and " + RawRounds.write(out, raw));
        } else {
            System.out.println(raw);
        }
        int failures = 0;
        for (StoreResult s : stores) {
            if (s.failure() != null || s.runs().stream().anyMatch(LockRun::failed)) {
                failures++;
            }
        }
        return failures;
    }

    private StoreResult runStore(LockBenchOptions.Target target, LockBenchOptions o) {
        String title =
                switch (target) {
                    case REDIS -> "Redis";
                    case POSTGRESQL -> "PostgreSQL";
                    case MARIADB -> "MariaDB";
                    case ZOOKEEPER -> "ZooKeeper";
                };
        log("== " + title);
        String load = MachineInfo.loadAverage();
        Backend backend = null;
        try {
            backend = switch (target) {
                case REDIS -> new RedisLocks(o.redisUrl());
                case POSTGRESQL -> new SqlLocks("postgresql", title, o.pgUrl(), o.poolSize());
                case MARIADB -> new SqlLocks("mariadb", title, o.mariadbUrl(), o.poolSize());
                case ZOOKEEPER -> new ZooKeeperLocks();
            };
            String server = backend.server();
            CpuProbe cpu = ForeignLoad.probe(
                    switch (target) {
                        case REDIS ->
                            ForeignLoad.redisOnPort(io.lettuce.core.RedisURI.create(o.redisUrl())
                                    .getPort());
                        case POSTGRESQL -> (comm, dir) -> comm.equals("postgres");
                        case MARIADB -> (comm, dir) -> comm.equals("mariadbd") || comm.equals("mysqld");
                        case ZOOKEEPER -> ForeignLoad.NO_SERVER;
                    });
            log("server: " + server + "; load " + load);
            List<LockImpl> impls =
                    backend.impls().stream().filter(i -> o.runs(i.name())).toList();
            if (impls.isEmpty()) {
                throw new IllegalArgumentException("--rows matches no row of " + title);
            }

            List<AuditRow> audit = new ArrayList<>();
            if (o.auditCycles() > 0) {
                for (LockImpl impl : impls) {
                    AuditRow row = audit(backend, impl, o);
                    audit.add(row);
                    log(String.format(
                            Locale.ROOT,
                            "  audit  %-36s per lock+unlock: %s | per contended acquisition: %s%s",
                            impl.name(),
                            LockReport.formatCounts(row.uncontended()),
                            LockReport.formatCounts(row.contended()),
                            row.problem() == null ? "" : "  PROBLEM: " + row.problem()));
                }
            }

            // One unmeasured pass over every row and mode first: JIT, pools, subscriptions, rows.
            if (!o.prewarm().isZero()) {
                for (LockImpl impl : impls) {
                    for (LockLoad.Mode mode : LockLoad.Mode.values()) {
                        LockRun r = LockLoad.run(impl, mode, o.threads(), o.prewarm(), Duration.ZERO, 0, CpuProbe.NONE);
                        if (r.errors() > 0) {
                            log("  prewarm " + impl.name() + " " + mode.label + ": " + r.errors() + " errors, first: "
                                    + r.firstError());
                        }
                    }
                }
                log("  (every row and mode warmed up once, unmeasured)");
            }

            List<LockRun> runs = new ArrayList<>();
            for (int round = 1; round <= o.rounds(); round++) {
                boolean forward = round % 2 == 1;
                List<LockImpl> order = new ArrayList<>(impls);
                List<LockLoad.Mode> modes = new ArrayList<>(List.of(LockLoad.Mode.values()));
                if (!forward) {
                    Collections.reverse(order);
                    Collections.reverse(modes);
                }
                for (LockImpl impl : order) {
                    for (LockLoad.Mode mode : modes) {
                        System.gc();
                        LockRun r = LockLoad.run(impl, mode, o.threads(), o.warmup(), o.duration(), round, cpu);
                        runs.add(r);
                        log(line(r));
                    }
                }
            }
            return new StoreResult(
                    title, server, load, impls.stream().map(ImplInfo::of).toList(), runs, audit, null);
        } catch (Exception | LinkageError e) {
            log("  " + title + " not measured: " + e);
            e.printStackTrace(System.out);
            return new StoreResult(title, null, load, List.of(), List.of(), List.of(), e.toString());
        } finally {
            if (backend != null) {
                backend.close();
            }
        }
    }

    private static String line(LockRun r) {
        String base = String.format(
                Locale.ROOT,
                "  round %d  %-36s %-11s %10s /s  %s p50 %8s µs  p99 %8s µs",
                r.round(),
                r.impl(),
                r.mode().label,
                Markdown.ops(r.opsPerSecond()),
                r.mode() == LockLoad.Mode.CONTENDED ? "wait" : "pair",
                Markdown.micros(r.p50Micros()),
                Markdown.micros(r.p99Micros()));
        base += String.format(
                Locale.ROOT,
                "  cpu/cycle jvm %s server %s µs, %s cores",
                Markdown.micros(r.jvmCpuMicrosPerCycle()),
                Markdown.micros(r.serverCpuMicrosPerCycle()),
                Markdown.decimal2(r.coresBusy()));
        if (r.mode() == LockLoad.Mode.CONTENDED) {
            base += String.format(
                    Locale.ROOT,
                    "  gap p50 %6s µs  per thread %d–%d  overlaps %d",
                    Markdown.micros(r.gapP50Micros()),
                    r.minPerThread(),
                    r.maxPerThread(),
                    r.overlaps());
        }
        if (!Double.isNaN(r.foreignShare())) {
            base += "  other " + Markdown.percent(r.foreignShare());
        }
        if (r.errors() > 0) {
            base += "  ERRORS " + r.errors() + ": " + r.firstError();
        }
        return base;
    }

    /**
     * Counts what one row sends: {@code auditCycles} lock cycles on one thread and its own name, then
     * every thread on one name for {@code auditContended}. Untimed, before the measured runs.
     */
    private static AuditRow audit(Backend backend, LockImpl measured, LockBenchOptions o) {
        try (Backend.Audited a = backend.audit(measured)) {
            LockImpl impl = a.impl();
            LockImpl.Client client = impl.newClient();
            String name = LockLoad.lockName(LockLoad.Mode.UNCONTENDED, 0);
            for (int i = 0; i < 20; i++) { // connections, scripts, first rows: not part of the steady state
                client.acquire(name).release();
            }
            a.start();
            for (int i = 0; i < o.auditCycles(); i++) {
                client.acquire(name).release();
            }
            Map<String, Double> uncontended = per(a.stop(), o.auditCycles());
            // Settle: the contended name's first use (subscriptions, rows) is not part of the audit.
            LockLoad.run(
                    impl,
                    LockLoad.Mode.CONTENDED,
                    o.threads(),
                    Duration.ZERO,
                    Duration.ofMillis(300),
                    0,
                    CpuProbe.NONE);
            a.start();
            LockRun r = LockLoad.run(
                    impl, LockLoad.Mode.CONTENDED, o.threads(), Duration.ZERO, o.auditContended(), 0, CpuProbe.NONE);
            Map<String, Double> contended = per(a.stop(), r.allCycles());
            String problem = r.errors() > 0
                    ? r.errors() + " errors, first: " + r.firstError()
                    : r.overlaps() > 0 ? r.overlaps() + " overlaps" : null;
            return new AuditRow(measured.name(), uncontended, contended, problem);
        } catch (Exception e) {
            return new AuditRow(measured.name(), Map.of(), Map.of(), e.toString());
        }
    }

    private static Map<String, Double> per(Map<String, Long> counts, long cycles) {
        Map<String, Double> out = new TreeMap<>();
        if (cycles > 0) {
            counts.forEach((k, v) -> out.put(k, v / (double) cycles));
        }
        return out;
    }

    private static void log(String line) {
        System.out.println(line);
        System.out.flush();
    }
}

package io.dupguard.bench.lock;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Lock benchmark: lock + unlock throughput uncontended and acquisitions/s with the wait under
 * contention, for dupguard's lock providers next to their peers on the same servers in one JVM run
 * (Redis: hand-written ceiling, Redisson, Spring Integration; PostgreSQL and MariaDB: Spring
 * Integration, ShedLock; ZooKeeper: Curator's mutex). Run it with {@code scripts/bench-locks};
 * {@code --help} lists the options. Prints the tables and writes {@code docs/benchmarks-locks.md}.
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
        LockBenchOptions options;
        try {
            options = LockBenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bench-locks: " + e.getMessage());
            System.err.println();
            System.err.print(LockBenchOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.print(LockBenchOptions.USAGE);
            return;
        }
        int failures = new LockBench().run(options, command(args));
        System.exit(failures == 0 ? 0 : 1);
    }

    /** ZooKeeper's server and the Redis clients log every session at INFO; keep the console readable. */
    private static void quietLogs() {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
    }

    /** The command line as the report shows it. */
    static String command(String[] args) {
        StringBuilder sb = new StringBuilder(System.getProperty("dupguard.bench.command", "scripts/bench-locks"));
        for (String a : args) {
            sb.append(' ');
            if (a.isEmpty() || a.chars().anyMatch(c -> Character.isWhitespace(c) || "'\"$&;|<>*?".indexOf(c) >= 0)) {
                sb.append('\'').append(a.replace("'", "'\\''")).append('\'');
            } else {
                sb.append(a);
            }
        }
        return sb.toString();
    }

    private int run(LockBenchOptions o, String command) throws Exception {
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Map<String, String> machine = machineInfo();
        String loadBefore = loadAverage();
        log("machine: " + machine.get("CPU") + ", " + machine.get("Memory") + "; load " + loadBefore);
        log("settings: " + o.threads() + " threads, " + LockBenchOptions.formatDuration(o.prewarm())
                + " prewarm per row and mode, " + LockBenchOptions.formatDuration(o.warmup()) + " warmup + "
                + LockBenchOptions.formatDuration(o.duration()) + " measured per run, " + o.rounds() + " rounds");
        List<StoreResult> stores = new ArrayList<>();
        for (LockBenchOptions.Target target : o.targets()) {
            stores.add(runStore(target, o));
        }
        LockReport.Context ctx = new LockReport.Context(
                command,
                o,
                machine,
                loadBefore,
                loadAverage(),
                started,
                Duration.ofNanos(System.nanoTime() - t0),
                stores);
        String markdown = LockReport.markdown(ctx);
        System.out.println();
        System.out.println(markdown);
        if (o.out() != null) {
            Path out = o.out();
            String previous = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : null;
            if (out.toAbsolutePath().getParent() != null) {
                Files.createDirectories(out.toAbsolutePath().getParent());
            }
            Files.writeString(out, LockReport.withKeptNotes(markdown, previous), StandardCharsets.UTF_8);
            log("wrote " + out.toAbsolutePath());
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
        String load = loadAverage();
        Backend backend = null;
        try {
            backend = switch (target) {
                case REDIS -> new RedisLocks(o.redisUrl());
                case POSTGRESQL -> new SqlLocks("postgresql", title, o.pgUrl(), o.poolSize());
                case MARIADB -> new SqlLocks("mariadb", title, o.mariadbUrl(), o.poolSize());
                case ZOOKEEPER -> new ZooKeeperLocks();
            };
            String server = backend.server();
            CpuMeter cpu = CpuMeter.forStore(
                    title, io.lettuce.core.RedisURI.create(o.redisUrl()).getPort());
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
                    for (LockDriver.Mode mode : LockDriver.Mode.values()) {
                        LockRun r = LockDriver.run(impl, mode, o.threads(), o.prewarm(), Duration.ZERO, 0);
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
                List<LockDriver.Mode> modes = new ArrayList<>(List.of(LockDriver.Mode.values()));
                if (!forward) {
                    Collections.reverse(order);
                    Collections.reverse(modes);
                }
                for (LockImpl impl : order) {
                    for (LockDriver.Mode mode : modes) {
                        System.gc();
                        LockRun r = LockDriver.run(impl, mode, o.threads(), o.warmup(), o.duration(), round, cpu);
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
                LockReport.formatOps(r.opsPerSecond()),
                r.mode() == LockDriver.Mode.CONTENDED ? "wait" : "pair",
                LockReport.formatMicros(r.p50Micros()),
                LockReport.formatMicros(r.p99Micros()));
        base += String.format(
                Locale.ROOT,
                "  cpu/cycle jvm %s server %s µs, %s cores",
                LockReport.formatMicros(r.jvmCpuMicrosPerCycle()),
                LockReport.formatMicros(r.serverCpuMicrosPerCycle()),
                LockReport.formatCores(r.coresBusy()));
        if (r.mode() == LockDriver.Mode.CONTENDED) {
            base += String.format(
                    Locale.ROOT,
                    "  gap p50 %6s µs  per thread %d–%d  overlaps %d",
                    LockReport.formatMicros(r.gapP50Micros()),
                    r.minPerThread(),
                    r.maxPerThread(),
                    r.overlaps());
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
            String name = LockDriver.lockName(LockDriver.Mode.UNCONTENDED, 0);
            for (int i = 0; i < 20; i++) { // connections, scripts, first rows: not part of the steady state
                client.acquire(name).release();
            }
            a.start();
            for (int i = 0; i < o.auditCycles(); i++) {
                client.acquire(name).release();
            }
            Map<String, Double> uncontended = per(a.stop(), o.auditCycles());
            // Settle: the contended name's first use (subscriptions, rows) is not part of the audit.
            LockDriver.run(impl, LockDriver.Mode.CONTENDED, o.threads(), Duration.ZERO, Duration.ofMillis(300), 0);
            a.start();
            LockRun r =
                    LockDriver.run(impl, LockDriver.Mode.CONTENDED, o.threads(), Duration.ZERO, o.auditContended(), 0);
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

    /**
     * The machine description of the idempotency bench ({@code io.dupguard.bench.MachineInfo}, which is
     * package-private there): called reflectively so that both reports describe the machine the same
     * way; a minimal fallback if it cannot be called.
     */
    static Map<String, String> machineInfo() {
        Map<String, String> out = new LinkedHashMap<>();
        try {
            Object info = machineInfoMethod("collect").invoke(null);
            if (info instanceof Map<?, ?> m) {
                m.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
                return out;
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // fall back below
        }
        out.put(
                "CPU",
                System.getProperty("os.arch") + " — nproc "
                        + Runtime.getRuntime().availableProcessors());
        out.put("Memory", Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB heap");
        out.put("OS", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        out.put("Java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        return out;
    }

    /** The 1, 5 and 15 minute load averages, through the idempotency bench's MachineInfo. */
    static String loadAverage() {
        try {
            return String.valueOf(machineInfoMethod("loadAverage").invoke(null));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "?";
        }
    }

    private static Method machineInfoMethod(String name) throws ReflectiveOperationException {
        Method m = Class.forName("io.dupguard.bench.MachineInfo").getDeclaredMethod(name);
        m.setAccessible(true);
        return m;
    }

    private static void log(String line) {
        System.out.println(line);
        System.out.flush();
    }
}

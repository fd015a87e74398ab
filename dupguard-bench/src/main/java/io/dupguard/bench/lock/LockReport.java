package io.dupguard.bench.lock;

import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.bench.harness.Markdown;
import io.dupguard.bench.harness.RawRounds;
import io.dupguard.bench.harness.Rounds;
import io.dupguard.bench.lock.LockBench.AuditRow;
import io.dupguard.bench.lock.LockBench.ImplInfo;
import io.dupguard.bench.lock.LockBench.StoreResult;
import io.dupguard.bench.lock.LockLoad.Mode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** Turns the runs into Markdown: the tables per store, the targets, the audit, machine and settings. */
final class LockReport {
    /** Lines from this marker on are kept when the report is written again (the hand-written analysis). */
    static final String NOTES_MARKER =
            "<!-- notes below this line are kept when scripts/bench-locks rewrites the file -->";

    /** PostgreSQL and MariaDB: dupguard against the lean hand-written lease row. */
    static final double SQL_LEAN_TARGET = 0.9;

    /** After a check that is not a target: the ratio of a target, applied to the other mode. */
    private static final String FOR_INFORMATION = " *(for information: the target is uncontended)*";

    private LockReport() {}

    record Context(
            String command,
            LockBenchOptions options,
            Map<String, String> machine,
            String loadBefore,
            String loadAfter,
            Instant started,
            Duration elapsed,
            List<StoreResult> stores,
            String rawLink) {}

    /**
     * One check evaluated on the medians of this run: one of the project's targets ({@code target}),
     * or the same ratio in the other mode, shown for information.
     */
    record Check(String store, Mode mode, String what, String value, boolean met, boolean target) {}

    /** Throughput: the median of a row's rounds. */
    static final ToDoubleFunction<Rounds.Median<LockRun>> THROUGHPUT = Rounds.Median::value;

    /** p99 latency (contended: of the wait) of the round closest to the median. */
    static final ToDoubleFunction<Rounds.Median<LockRun>> P99 = m -> m.round().p99Micros();

    /**
     * The median of one row's successful rounds in one mode: the median throughput and the round
     * closest to it, whose latencies, spread and CPU the tables show.
     */
    static Optional<Rounds.Median<LockRun>> median(List<LockRun> runs, String impl, Mode mode) {
        return Rounds.median(
                runs.stream()
                        .filter(r -> r.impl().equals(impl) && r.mode() == mode && !r.failed())
                        .toList(),
                LockRun::opsPerSecond);
    }

    /** Row {@code a} against row {@code b} in one mode, on their medians. */
    static Optional<Double> ratio(
            StoreResult s, String a, String b, Mode mode, ToDoubleFunction<Rounds.Median<LockRun>> metric) {
        Optional<Rounds.Median<LockRun>> ma = median(s.runs(), a, mode);
        Optional<Rounds.Median<LockRun>> mb = median(s.runs(), b, mode);
        if (ma.isEmpty() || mb.isEmpty()) {
            return Optional.empty();
        }
        double vb = metric.applyAsDouble(mb.get());
        return vb == 0 || Double.isNaN(vb) ? Optional.empty() : Optional.of(metric.applyAsDouble(ma.get()) / vb);
    }

    static List<Check> checks(StoreResult s) {
        List<Check> out = new ArrayList<>();
        if (s.failure() != null) {
            return out;
        }
        switch (s.title()) {
            case "Redis" -> {
                atLeast(out, s, Mode.UNCONTENDED, RedisLocks.DUPGUARD, RedisLocks.CEILING, 0.85, "hand-written", true);
                atLeast(out, s, Mode.CONTENDED, RedisLocks.DUPGUARD, RedisLocks.REDISSON, 1.0, "Redisson", true);
                ratio(s, RedisLocks.DUPGUARD, RedisLocks.REDISSON, Mode.CONTENDED, P99)
                        .ifPresent(v -> out.add(new Check(
                                s.title(),
                                Mode.CONTENDED,
                                "p99 wait ≤ ¼ × Redisson's",
                                Markdown.ratio(v),
                                v <= 0.25,
                                true)));
            }
            case "PostgreSQL", "MariaDB" -> {
                // The targets against the JDBC peers are uncontended; contended, the same ratios are
                // shown for information.
                for (Mode mode : Mode.values()) {
                    boolean target = mode == Mode.UNCONTENDED;
                    atLeast(out, s, mode, SqlLocks.DUPGUARD, SqlLocks.SPRING, 2.0, "Spring JdbcLockRegistry", target);
                    atLeast(out, s, mode, SqlLocks.DUPGUARD, SqlLocks.SHEDLOCK, 1.3, "ShedLock", target);
                }
                // Against the lean ceiling the target is uncontended only (contended, the ceilings
                // poll while dupguard hands over in the JVM: that ratio is listed for information).
                atLeast(
                        out,
                        s,
                        Mode.UNCONTENDED,
                        SqlLocks.DUPGUARD,
                        LeaseRowLocks.LEAN,
                        SQL_LEAN_TARGET,
                        "hand-written lean lease row",
                        true);
            }
            case "ZooKeeper" -> {
                for (Mode mode : Mode.values()) {
                    atLeast(out, s, mode, ZooKeeperLocks.DUPGUARD, ZooKeeperLocks.CURATOR, 0.9, "raw Curator", true);
                }
            }
            default -> {}
        }
        for (Mode mode : Mode.values()) {
            long bad = s.runs().stream()
                    .filter(r -> r.mode() == mode)
                    .mapToLong(r -> r.overlaps() + r.errors())
                    .sum();
            if (mode == Mode.CONTENDED || bad > 0) {
                out.add(new Check(
                        s.title(),
                        mode,
                        "no overlap, no error in any run of any row",
                        bad + " overlaps + errors",
                        bad == 0,
                        true));
            }
        }
        return out;
    }

    private static void atLeast(
            List<Check> out,
            StoreResult s,
            Mode mode,
            String a,
            String b,
            double needed,
            String label,
            boolean target) {
        ratio(s, a, b, mode, THROUGHPUT)
                .ifPresent(v -> out.add(new Check(
                        s.title(),
                        mode,
                        (mode == Mode.CONTENDED ? "acquisitions/s" : "lock+unlock/s") + " ≥ " + trim(needed) + "× "
                                + label,
                        Markdown.ratio(v),
                        v >= needed,
                        target)));
    }

    static String markdown(Context ctx) {
        LockBenchOptions o = ctx.options();
        StringBuilder md = new StringBuilder();
        md.append("# Lock benchmarks\n\n");
        md.append("Throughput and latency of dupguard's lock providers next to their peers on the same servers:")
                .append(" lock + unlock uncontended (every thread on its own name) and hand-off under contention")
                .append(" (every thread on one name). All rows of a store run back to back in one JVM run; every")
                .append(" ratio compares rows of that one run. Written by `scripts/bench-locks`; the analysis at the")
                .append(" end is hand-written and kept when the file is rewritten.\n\n");
        md.append("Numbers from a 2-core machine with every server on the same cores as the client JVM are noisy")
                .append(" (expect ±10 % between runs), which is why each row reports the median of its rounds; ")
                .append(rawFile(ctx))
                .append(" lists every round.\n\n");

        md.append(Markdown.commandSection(ctx.command(), ctx.started(), ctx.elapsed()));
        Map<String, String> machine = new LinkedHashMap<>(ctx.machine());
        machine.remove(MachineInfo.LOAD_AT_START); // the load line below has it
        machine.put("Load average (1/5/15 min)", "before: " + ctx.loadBefore() + "; after: " + ctx.loadAfter());
        Map<String, String> servers = new LinkedHashMap<>();
        for (StoreResult s : ctx.stores()) {
            if (s.server() != null) {
                servers.put(s.title(), s.server());
            }
        }
        md.append(Markdown.machineSection(machine, servers));
        md.append("**2 cores, shared:** PostgreSQL, MariaDB and Redis run on this machine (loopback) and")
                .append(" ZooKeeper runs inside the benchmark JVM, so every server competes with the 16 client")
                .append(" threads (and with the peers' own I/O and timer threads) for the same 2 cores. Absolute")
                .append(" numbers are low and latencies include waiting for a core; the ratios between rows of one")
                .append(" run are what the targets compare. The machine may also run other work (builds, tests):")
                .append(" the load average is recorded for the run and for each store, and the CPU share other")
                .append(" processes used in every measured window.\n\n");

        md.append("## Settings\n\n");
        md.append("- **Load**: ")
                .append(o.threads())
                .append(" client threads in a closed loop (each starts its next cycle when the previous one returns).")
                .append(" Before round 1 every row runs once per mode, unmeasured, for ")
                .append(Markdown.duration(o.prewarm()))
                .append(" (JIT, pools, subscriptions, lock rows). Each run: ")
                .append(Markdown.duration(o.warmup()))
                .append(" warmup, then ")
                .append(Markdown.duration(o.duration()))
                .append(" measured. Only cycles started in the measured window count; throughput = cycles / window.\n");
        md.append("- **Rounds**: ")
                .append(o.rounds())
                .append(" per store; every row and mode runs once per round, rows and modes in reverse order every")
                .append(" other round. Each row shows the **median** of its rounds (throughput; latencies, per-thread")
                .append(" spread and CPU are from the round closest to the median), and every ratio compares medians;")
                .append(" every round is in ")
                .append(rawFile(ctx))
                .append(". A failed round (an error or an overlap) is left out of the median.\n");
        md.append("- **Other load**: during each measured window, the CPU used by processes other than this JVM and")
                .append(" the store's server, from `/proc` (share of the machine's 2 cores): each store gives its")
                .append(" range, the raw file every round's share.\n");
        md.append("- **Uncontended**: thread *i* locks and unlocks its own name `own-i`, again and again; latency")
                .append(" = the acquire + release pair.\n");
        md.append("- **Contended**: every thread locks the name `shared`. One cycle = acquire (blocking; every")
                .append(" implementation waits at least 30 s) → critical section → release. The critical section")
                .append(" increments an atomic *inside* counter and checks it is 1 (else: an overlap), increments an")
                .append(" unguarded counter (lost increments are counted as overlaps too), notes the time and leaves.")
                .append(" *Wait* = the acquire call alone. *Hand-off gap* = from the previous holder starting its")
                .append(" release to this acquire returning: how long the lock stood free between two holders.")
                .append(" *Per thread* = fewest–most cycles one thread completed in the window (fairness: a FIFO")
                .append(" lock gives every thread the same share).\n");
        md.append("- **CPU**: during each measured window, the CPU time of the benchmark JVM (every thread: clients,")
                .append(" drivers' I/O and timer threads, and for ZooKeeper the in-process server) and of the store's")
                .append(" server processes (`/proc/<pid>/stat`: every PostgreSQL backend, `mariadbd`, `redis-server`")
                .append(
                        " of the port under test), per cycle; *cores busy* = both together ÷ window: the machine has 2,")
                .append(" so a row near 2 is CPU-bound.\n");
        md.append("- **Latency**: `System.nanoTime` around the call, per-thread HdrHistogram (3 significant digits),")
                .append(" merged after the run. 16 threads on 2 cores: it includes waiting for a core.\n");
        md.append("- **Instances**: every row has its own client and connections (own `RedisClient`, own Redisson")
                .append(" client, own Lettuce connection factory, own HikariCP pool of ")
                .append(o.poolSize())
                .append(", own `CuratorFramework` session) and its own keys, tables or znodes. On PostgreSQL and")
                .append(" MariaDB two hand-written ceilings: the *lean lease row* on its own minimal table and")
                .append(" *same-table* on dupguard's lock table, both polling when refused. Each library runs with")
                .append(" its defaults; what a row sends and how it waits is listed under each table.\n");
        md.append("- **Audit**: before the measured runs, each row runs ")
                .append(o.auditCycles())
                .append(" lock cycles on one thread, then every thread on one name for ")
                .append(Markdown.duration(o.auditContended()))
                .append(", while the server side counts what arrives (Redis: `MONITOR`, top-level commands only,")
                .append(" not the commands a script runs; ZooKeeper: `mntr`'s `zk_packets_received`) or a counting")
                .append(" wrapper around a separate pool counts what the row asks of JDBC. Untimed.\n\n");

        Map<ImplInfo, String> described = new LinkedHashMap<>();
        for (StoreResult s : ctx.stores()) {
            store(md, s, checks(s), described);
        }

        md.append(NOTES_MARKER).append('\n');
        return md.toString();
    }

    /**
     * One store's tables, targets, audit and rows; a row described under an earlier store ({@code
     * described}: row → that store) is not described again.
     */
    private static void store(StringBuilder md, StoreResult s, List<Check> checks, Map<ImplInfo, String> described) {
        md.append("## ").append(s.title()).append("\n\n");
        if (s.failure() != null) {
            md.append("Not measured: `").append(s.failure()).append("`\n\n");
            return;
        }
        md.append(s.server())
                .append(". Load average at the start of this store: ")
                .append(s.loadAverage())
                .append('.')
                .append(otherLoad(s.runs()));
        md.append("\n\n### Uncontended: lock + unlock, each thread on its own name\n\n");
        md.append(
                        "| row | lock+unlock/s (median) | p50 µs | p99 µs | CPU µs/cycle JVM | CPU µs/cycle server | cores busy |")
                .append("\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (ImplInfo impl : s.impls()) {
            Optional<Rounds.Median<LockRun>> m = median(s.runs(), impl.name(), Mode.UNCONTENDED);
            Optional<LockRun> b = m.map(Rounds.Median::round);
            md.append("| ").append(label(impl)).append(" | ");
            md.append(m.map(x -> Markdown.ops(x.value())).orElse("failed"))
                    .append(" | ")
                    .append(b.map(r -> Markdown.micros(r.p50Micros())).orElse("—"))
                    .append(" | ")
                    .append(b.map(r -> Markdown.micros(r.p99Micros())).orElse("—"))
                    .append(" | ")
                    .append(cpu(b))
                    .append('\n');
        }
        md.append("\n### Contended: ")
                .append("every thread on one name\n\n")
                .append(
                        "| row | acquisitions/s (median) | wait p50 µs | wait p99 µs | hand-off gap p50 µs | gap p99 µs |")
                .append(" per thread (min–max) | overlaps | CPU µs/acq. JVM | CPU µs/acq. server | cores busy |")
                .append("\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ImplInfo impl : s.impls()) {
            Optional<Rounds.Median<LockRun>> m = median(s.runs(), impl.name(), Mode.CONTENDED);
            Optional<LockRun> b = m.map(Rounds.Median::round);
            long overlaps = s.runs().stream()
                    .filter(r -> r.impl().equals(impl.name()) && r.mode() == Mode.CONTENDED)
                    .mapToLong(LockRun::overlaps)
                    .sum();
            md.append("| ").append(label(impl)).append(" | ");
            md.append(m.map(x -> Markdown.ops(x.value())).orElse("failed"))
                    .append(" | ")
                    .append(b.map(r -> Markdown.micros(r.p50Micros())).orElse("—"))
                    .append(" | ")
                    .append(b.map(r -> Markdown.micros(r.p99Micros())).orElse("—"))
                    .append(" | ")
                    .append(b.map(r -> Markdown.micros(r.gapP50Micros())).orElse("—"))
                    .append(" | ")
                    .append(b.map(r -> Markdown.micros(r.gapP99Micros())).orElse("—"))
                    .append(" | ")
                    .append(b.map(r -> r.minPerThread() + "–" + r.maxPerThread())
                            .orElse("—"))
                    .append(" | ")
                    .append(overlaps)
                    .append(" | ")
                    .append(cpu(b))
                    .append('\n');
        }
        md.append('\n');
        if (!checks.isEmpty()) {
            md.append("Targets on ").append(s.title()).append(":\n\n");
            for (Check c : checks) {
                md.append("- ")
                        .append(c.met() ? "✅ " : "❌ ")
                        .append(c.mode().label)
                        .append(": ")
                        .append(c.what())
                        .append(" — ")
                        .append(c.value())
                        .append(c.target() ? "" : FOR_INFORMATION)
                        .append('\n');
            }
            info(md, s);
            md.append('\n');
        }
        if (!s.audit().isEmpty()) {
            md.append("What each row sends to the server (audit):\n\n")
                    .append("| row | per lock + unlock (1 thread, own name) | per acquisition (")
                    .append("all threads, one name) |\n|---|---|---|\n");
            for (AuditRow a : s.audit()) {
                md.append("| ")
                        .append(a.impl())
                        .append(" | ")
                        .append(
                                a.problem() != null && a.uncontended().isEmpty()
                                        ? "audit failed: " + Markdown.cell(a.problem())
                                        : formatCounts(a.uncontended()))
                        .append(" | ")
                        .append(formatCounts(a.contended()))
                        .append(
                                a.problem() != null && !a.uncontended().isEmpty()
                                        ? " (" + Markdown.cell(a.problem()) + ")"
                                        : "")
                        .append(" |\n");
            }
            md.append('\n');
        }
        List<ImplInfo> fresh =
                s.impls().stream().filter(i -> !described.containsKey(i)).toList();
        List<String> earlier = s.impls().stream()
                .filter(described::containsKey)
                .map(described::get)
                .distinct()
                .toList();
        if (fresh.isEmpty() && earlier.size() == 1) {
            md.append("Rows: as described under ").append(earlier.get(0)).append(".\n\n");
            return;
        }
        md.append("Rows:\n\n");
        for (ImplInfo impl : s.impls()) {
            md.append("- **").append(impl.name()).append("**: ");
            if (described.containsKey(impl)) {
                md.append("as described under ").append(described.get(impl)).append(".\n");
                continue;
            }
            described.put(impl, s.title());
            md.append(impl.description())
                    .append(" Waiting: ")
                    .append(impl.waiting())
                    .append(".\n");
        }
        md.append('\n');
    }

    /** Ratios shown for information: against the other peers and ceilings, and the latencies. */
    private static void info(StringBuilder md, StoreResult s) {
        List<String> lines = new ArrayList<>();
        switch (s.title()) {
            case "Redis" -> {
                ratio(s, RedisLocks.DUPGUARD, RedisLocks.REDISSON, Mode.UNCONTENDED, THROUGHPUT)
                        .ifPresent(v -> lines.add("uncontended: dupguard ÷ Redisson = " + Markdown.ratio(v)));
                ratio(s, RedisLocks.DUPGUARD, RedisLocks.SPRING, Mode.UNCONTENDED, THROUGHPUT)
                        .ifPresent(v ->
                                lines.add("uncontended: dupguard ÷ Spring RedisLockRegistry = " + Markdown.ratio(v)));
                ratio(s, RedisLocks.DUPGUARD, RedisLocks.SPRING, Mode.CONTENDED, THROUGHPUT)
                        .ifPresent(v ->
                                lines.add("contended: dupguard ÷ Spring RedisLockRegistry = " + Markdown.ratio(v)));
            }
            case "PostgreSQL", "MariaDB" -> {
                for (Mode mode : Mode.values()) {
                    ratio(s, SqlLocks.DUPGUARD, LeaseRowLocks.SAME_TABLE, mode, THROUGHPUT)
                            .ifPresent(v -> lines.add(
                                    mode.label + ": dupguard ÷ hand-written same-table = " + Markdown.ratio(v)));
                }
                ratio(s, SqlLocks.DUPGUARD, LeaseRowLocks.LEAN, Mode.CONTENDED, THROUGHPUT)
                        .ifPresent(v -> lines.add("contended: dupguard ÷ hand-written lean lease row = "
                                + Markdown.ratio(v) + " (the ceilings poll; dupguard hands over inside the JVM)"));
            }
            case "ZooKeeper" -> {
                for (Mode mode : Mode.values()) {
                    ratio(s, ZooKeeperLocks.DUPGUARD, ZooKeeperLocks.CURATOR, mode, P99)
                            .ifPresent(
                                    v -> lines.add(mode.label + ": dupguard p99 ÷ Curator p99 = " + Markdown.ratio(v)));
                }
            }
            default -> {}
        }
        for (String l : lines) {
            md.append("- for information: ").append(l).append('\n');
        }
    }

    /** The CPU cells of a row, the last one closed by " |". */
    private static String cpu(Optional<LockRun> b) {
        return b.map(r -> Markdown.micros(r.jvmCpuMicrosPerCycle()) + " | "
                        + (Double.isNaN(r.serverCpuMicrosPerCycle())
                                ? "in the JVM"
                                : Markdown.micros(r.serverCpuMicrosPerCycle()))
                        + " | " + Markdown.decimal2(r.coresBusy()) + " |")
                .orElse("— | — | — |");
    }

    /** The page's link to its raw file, or where the rounds went without one. */
    private static String rawFile(Context ctx) {
        return ctx.rawLink() == null
                ? "the raw rounds printed after the page"
                : "[" + ctx.rawLink() + "](" + ctx.rawLink() + ")";
    }

    /** Every round of every row, for the raw file beside the page. */
    static RawRounds raw(Context ctx, String page) {
        RawRounds raw =
                new RawRounds(page, ctx.command(), ctx.started(), "lock + unlock cycles (contended: acquisitions)");
        for (StoreResult s : ctx.stores()) {
            for (ImplInfo impl : s.impls()) {
                for (Mode mode : Mode.values()) {
                    s.runs().stream()
                            .filter(r -> r.impl().equals(impl.name()) && r.mode() == mode)
                            .sorted(Comparator.comparingInt(LockRun::round))
                            .forEach(r -> raw.round(
                                    s.title(),
                                    impl.name(),
                                    mode.label,
                                    r.round(),
                                    r.opsPerSecond(),
                                    r.foreignShare(),
                                    r.failed()
                                            ? "failed: " + r.errors() + " errors, " + r.overlaps() + " overlaps"
                                            : "ok"));
                }
            }
        }
        return raw;
    }

    /**
     * " Other processes used 3–40 % of the CPU in its measured windows (median 12 %)." — empty if
     * no window measured it.
     */
    static String otherLoad(List<LockRun> runs) {
        double[] shares = runs.stream()
                .mapToDouble(LockRun::foreignShare)
                .filter(v -> !Double.isNaN(v))
                .toArray();
        if (shares.length == 0) {
            return "";
        }
        double min = java.util.Arrays.stream(shares).min().orElseThrow();
        double max = java.util.Arrays.stream(shares).max().orElseThrow();
        return " Other processes used " + Math.round(min * 100) + "–" + Markdown.percent(max)
                + " of the CPU in its measured windows (median " + Markdown.percent(Rounds.median(shares)) + ").";
    }

    private static String label(ImplInfo impl) {
        return impl.role() == LockImpl.Role.DUPGUARD ? "**" + impl.name() + "**" : impl.name();
    }

    static String formatCounts(Map<String, Double> counts) {
        if (counts.isEmpty()) {
            return "—";
        }
        return counts.entrySet().stream()
                .filter(e -> e.getValue() >= 0.005)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .map(e -> e.getKey() + " " + String.format(Locale.ROOT, "%.2f", e.getValue()))
                .collect(Collectors.joining(" · "));
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}

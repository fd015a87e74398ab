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
        md.append("Throughput and latency of dupguard's lock providers next to their peers on the same servers,")
                .append(
                        " uncontended (every thread on its own name) and contended (every thread on one name). All rows")
                .append(
                        " of a store run back to back in one JVM run; every ratio compares rows of that run. Written by")
                .append(" `scripts/bench-locks`; the analysis at the end is hand-written and kept when the file is")
                .append(" rewritten.\n\n");
        md.append("Numbers from 2 cores shared with the servers are noisy (expect ±10 % between runs), so each row")
                .append(" reports the median of its rounds; ")
                .append(RawRounds.mention(ctx.rawLink()))
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
        md.append("**2 cores, shared:** PostgreSQL, MariaDB and Redis run on this machine (loopback), ZooKeeper")
                .append(" inside the benchmark JVM: every server competes with the client threads for the 2 cores, so")
                .append(" absolute numbers are low and latencies include waiting for a core; the targets compare")
                .append(" rows of one run. Other work (builds, tests) may run too: the load average is recorded for")
                .append(" the run and for each store.\n\n");

        md.append("## Settings\n\n");
        md.append("- **Load**: ")
                .append(o.threads())
                .append(" client threads in a closed loop. Before round 1 every row runs once per mode, unmeasured,")
                .append(" for ")
                .append(Markdown.duration(o.prewarm()))
                .append(" (JIT, pools, subscriptions, lock rows). Each run: ")
                .append(Markdown.duration(o.warmup()))
                .append(" warmup, then ")
                .append(Markdown.duration(o.duration()))
                .append(" measured; throughput = cycles started in the measured window ÷ window.\n");
        md.append("- **Rounds**: ")
                .append(o.rounds())
                .append(" per store; every row and mode runs once per round, in reverse order every other round. A")
                .append(
                        " row shows the **median** of its rounds (throughput; latencies, per-thread spread and CPU from")
                .append(" the round closest to it), and every ratio compares medians; every round is in ")
                .append(RawRounds.mention(ctx.rawLink()))
                .append(". A failed round (an error or an overlap) is left out of the median.\n");
        md.append("- **Other load**: the CPU that processes other than this JVM and the store's server used in each")
                .append(" measured window, from `/proc` (share of the 2 cores): each store gives its range, the raw")
                .append(" file every round's share.\n");
        md.append("- **Uncontended**: thread *i* locks and unlocks its own name `own-i`, again and again; latency")
                .append(" = the acquire + release pair.\n");
        md.append("- **Contended**: every thread locks the name `shared`: acquire (blocking, at least 30 s) →")
                .append(" critical section → release. The critical section checks that an atomic *inside* counter")
                .append(" is 1 and increments an unguarded counter; either failing counts as an overlap. *Wait* = the")
                .append(" acquire call. *Hand-off gap* = from the previous holder starting its release to this acquire")
                .append(" returning. *Per thread* = fewest–most cycles of one thread (a FIFO lock gives every thread")
                .append(" the same share).\n");
        md.append("- **CPU**: per cycle, the CPU time of the benchmark JVM (every thread; for ZooKeeper also the")
                .append(" server) and of the store's server processes (`/proc/<pid>/stat`) in the measured window;")
                .append(" *cores busy* = both ÷ window (of 2: near 2 is CPU-bound).\n");
        md.append("- **Latency**: `System.nanoTime` around the call, per-thread HdrHistogram (3 significant digits),")
                .append(" merged; it includes waiting for a core.\n");
        md.append("- **Instances**: every row has its own client and connections (on SQL a HikariCP pool of ")
                .append(o.poolSize())
                .append(") and its own keys, tables or znodes; libraries run with their defaults. Under each table:")
                .append(" what a row sends and how it waits (on SQL also two hand-written ceilings, the *lean lease")
                .append(" row* and *same-table*).\n");
        md.append("- **Audit**: untimed, before the measured runs, each row runs ")
                .append(o.auditCycles())
                .append(" lock cycles on one thread, then every thread on one name for ")
                .append(Markdown.duration(o.auditContended()))
                .append(", while the server counts what arrives (Redis: `MONITOR`, top-level commands only;")
                .append(" ZooKeeper: `mntr`'s `zk_packets_received`) or a counting wrapper counts what the row asks of")
                .append(" JDBC.\n\n");

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
                .append(" per thread (min–max) | CPU µs/acq. JVM | CPU µs/acq. server | cores busy |")
                .append("\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ImplInfo impl : s.impls()) {
            Optional<Rounds.Median<LockRun>> m = median(s.runs(), impl.name(), Mode.CONTENDED);
            Optional<LockRun> b = m.map(Rounds.Median::round);
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
                        .append(
                                !a.uncontended().isEmpty()
                                                && formatCounts(a.contended()).equals(formatCounts(a.uncontended()))
                                        ? "the same"
                                        : formatCounts(a.contended()))
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

    /** Every round of every row, for the raw file beside the page. */
    static RawRounds raw(Context ctx, String page) {
        RawRounds raw =
                new RawRounds(page, ctx.command(), ctx.started(), "lock + unlock cycles (contended: acquisitions)");
        for (StoreResult s : ctx.stores()) {
            for (ImplInfo impl : s.impls()) {
                for (Mode mode : Mode.values()) {
                    raw.rounds(
                            s.title(),
                            impl.name(),
                            mode.label,
                            s.runs().stream()
                                    .filter(r -> r.impl().equals(impl.name()) && r.mode() == mode)
                                    .toList(),
                            LockRun::round,
                            LockRun::opsPerSecond,
                            LockRun::foreignShare,
                            r -> r.failed()
                                    ? "failed: " + r.errors() + " errors, " + r.overlaps() + " overlaps"
                                    : "ok");
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

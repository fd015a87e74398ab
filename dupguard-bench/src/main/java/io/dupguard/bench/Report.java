package io.dupguard.bench;

import io.dupguard.bench.harness.Markdown;
import io.dupguard.bench.harness.RawRounds;
import io.dupguard.bench.harness.Rounds;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Turns the runs into Markdown: the tables, the targets, the machine and the settings. */
final class Report {
    /** Lines from this marker on are kept when the report is written again (hand-written notes). */
    static final String NOTES_MARKER = "<!-- notes below this line are kept when scripts/bench rewrites the file -->";

    static final double CEILING_TARGET = 0.85;
    /** PostgreSQL and MariaDB: dupguard against the lean hand-written design. */
    static final double SQL_LEAN_TARGET = 0.9;

    static final double CAMEL_TARGET = 1.0;
    static final double MEMORY_TARGET_OPS = 2_000_000;

    private Report() {}

    /** An implementation as the report names and describes it. */
    record ImplInfo(String name, BenchImpl.Role role, String description) {
        static ImplInfo of(BenchImpl impl) {
            return new ImplInfo(impl.name(), impl.role(), impl.description());
        }
    }

    /** Everything measured on one store; {@code failure} set if the store could not be benchmarked. */
    record StoreReport(
            String title,
            String server,
            List<ImplInfo> impls,
            List<RunResult> runs,
            List<Audit.Row> audit,
            String failure) {}

    record Context(
            String command,
            BenchOptions options,
            Map<String, String> machine,
            Instant started,
            Duration elapsed,
            List<StoreReport> stores,
            String rawLink) {}

    /**
     * The median of the successful rounds: {@code opsPerSecond} is the median throughput (the mean
     * of the two middle rounds for an even count), {@code round} the round whose throughput is
     * closest to it, whose latency and CPU the tables show.
     */
    record Median(double opsPerSecond, RunResult round) {}

    static Optional<Median> median(List<RunResult> runs, String impl, Workload workload) {
        return Rounds.median(
                        runs.stream()
                                .filter(r -> r.impl().equals(impl) && r.workload() == workload && !r.failed())
                                .toList(),
                        RunResult::opsPerSecond)
                .map(m -> new Median(m.value(), m.round()));
    }

    private static double targetFor(StoreReport s) {
        return s.title().equals("PostgreSQL") || s.title().equals("MariaDB") ? SQL_LEAN_TARGET : CEILING_TARGET;
    }

    /** The transactional rows and their ceilings. */
    private static boolean transactional(BenchImpl.Role role) {
        return role == BenchImpl.Role.DUPGUARD_TX
                || role == BenchImpl.Role.CEILING_TX
                || role == BenchImpl.Role.CEILING_TX_SAME_TABLE;
    }

    /** The lean ceiling a row is compared with: the transactional one for a transactional row, where there is one. */
    private static BenchImpl.Role leanOf(StoreReport s, BenchImpl.Role role) {
        return transactional(role) && withRole(s, BenchImpl.Role.CEILING_TX).isPresent()
                ? BenchImpl.Role.CEILING_TX
                : BenchImpl.Role.CEILING;
    }

    /** The same-table ceiling a row is compared with, likewise. */
    private static BenchImpl.Role sameTableOf(StoreReport s, BenchImpl.Role role) {
        return transactional(role)
                        && withRole(s, BenchImpl.Role.CEILING_TX_SAME_TABLE).isPresent()
                ? BenchImpl.Role.CEILING_TX_SAME_TABLE
                : BenchImpl.Role.CEILING_SAME_TABLE;
    }

    private static Optional<ImplInfo> withRole(StoreReport s, BenchImpl.Role role) {
        return s.impls().stream().filter(i -> i.role() == role).findFirst();
    }

    private static Optional<Double> ratio(StoreReport s, String impl, BenchImpl.Role against, Workload w) {
        Optional<ImplInfo> base = withRole(s, against);
        if (base.isEmpty()) {
            return Optional.empty();
        }
        Optional<Median> a = median(s.runs(), impl, w);
        Optional<Median> b = median(s.runs(), base.get().name(), w);
        if (a.isEmpty() || b.isEmpty() || b.get().opsPerSecond() == 0) {
            return Optional.empty();
        }
        return Optional.of(a.get().opsPerSecond() / b.get().opsPerSecond());
    }

    /**
     * The project sets hand-written ceilings for Redis and the SQL stores; for the in-memory store it
     * sets an absolute target (≥ 2 M ops/s), and the bare map row is shown for scale only.
     */
    private static boolean hasCeilingTarget(StoreReport s) {
        return !s.title().equals("memory");
    }

    static String markdown(Context ctx) {
        BenchOptions o = ctx.options();
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks\n\n");
        md.append("Throughput and latency of `Idempotency.execute` (and of the JDBC transactional mode) on every")
                .append(" store, next to hand-written ceilings — on PostgreSQL and MariaDB two: *lean*, the design an")
                .append(" expert would write by hand on its own minimal table (the target), and *same-table*,")
                .append(" hand-written statements on dupguard's table (the library's client-side overhead) — and next")
                .append(" to Apache Camel's `JdbcMessageIdRepository`, the transactional mode's peer. All rows of a")
                .append(" store run back to back in one JVM run; every ratio compares rows of that run.\n\n");
        md.append("Written by `scripts/bench`. Numbers from 2 cores shared with the servers are noisy (expect ±10 %")
                .append(" between runs), so each row reports the median of its rounds; ")
                .append(RawRounds.mention(ctx.rawLink()))
                .append(" lists every round.\n\n");

        md.append(Markdown.commandSection(ctx.command(), ctx.started(), ctx.elapsed()));
        Map<String, String> servers = new LinkedHashMap<>();
        for (StoreReport s : ctx.stores()) {
            if (s.server() != null) {
                servers.put(s.title(), s.server());
            }
        }
        md.append(Markdown.machineSection(ctx.machine(), servers));
        md.append("The database servers and Redis run on the same machine (loopback) and share its cores with the")
                .append(" JVM that drives the load.\n\n");

        md.append("## Settings\n\n");
        md.append("- **Load**: ")
                .append(o.threads())
                .append(" client threads in a closed loop. Before round 1 every row runs once unmeasured for ")
                .append(Markdown.duration(o.prewarm()))
                .append(" (JIT, pools, caches). Each run: ")
                .append(Markdown.duration(o.warmup()))
                .append(" warmup, then ")
                .append(Markdown.duration(o.duration()))
                .append(" measured; throughput = calls started in the measured window ÷ window.\n");
        md.append("- **Rounds**: ")
                .append(o.rounds())
                .append(" per store; every row and workload runs once per round, the rows in reverse order every")
                .append(" other round. A row shows the **median** of its rounds (ops/s; p50/p99 and CPU from the round")
                .append(" closest to it), and every ratio compares medians; every round is in ")
                .append(RawRounds.mention(ctx.rawLink()))
                .append(".\n");
        md.append("- **Other load**: the machine is shared, so every measured window records the CPU that processes")
                .append(" other than this JVM and the database servers used (from /proc). A run where they used more")
                .append(" than ")
                .append(Math.round(IdempotencyBench.DISTURBED * 100))
                .append(" % is run once more, keeping the less disturbed attempt; the raw file gives every round's")
                .append(" share.\n");
        md.append("- **CPU per call**: CPU time of this JVM (load driver + implementation; for H2 also the database)")
                .append(" and of the server processes in the measured window (/proc) ÷ calls; on 2 shared cores this,")
                .append(
                        " more than latency, decides throughput. Server backends serving other databases count as other")
                .append(
                        " load; the servers' background work (WAL/redo writing, checkpoints, purge) stays in the server")
                .append(" column.\n");
        md.append("- **Latency**: `System.nanoTime` around each call, per-thread HdrHistogram (3 significant digits),")
                .append(" merged; it includes waiting for a core.\n");
        md.append("- **Workloads**: *unique* — every call a fresh key: the work runs and a record is written. *50 %")
                .append(
                        " dup* — with probability 0.5 a call re-uses a key its thread completed (at random from its last ")
                .append(ExecuteLoad.RING_SIZE)
                .append("), else a fresh key: duplicates replay completed records. *50 % dup, racing* (SQL rows) — as")
                .append(" *50 % dup*, but half of the duplicates re-use a key another thread issued a moment ago (in")
                .append(
                        " flight, just completed or not yet claimed): rejected as in flight (autocommit rows; dupguard's")
                .append(" default policy), waiting on the row lock (transactional rows) or replaying.\n");
        md.append("- **Work and payload**: the work returns `\"ok-<n>\"` (on the SQL stores padded to a 200-byte")
                .append(" response). Every row stores the same precomputed SHA-256 fingerprint (64 hex characters) and")
                .append(
                        " checks it on a duplicate; dupguard rows build an `IdempotencyKey.of(\"bench\", key)` per call")
                .append(
                        " (its NFC normalisation and checks are the API's cost); hand-written rows use the key string.\n");
        md.append("- **dupguard config**: defaults everywhere (30 s lease renewed by the Watchdog, 24 h retention,")
                .append(" reject in-flight, basic codec, no local cache).\n");
        if (o.targets().contains(BenchOptions.Target.MEMORY)) {
            md.append("- **Memory rows**: unique keys at millions per second would fill the heap within seconds (and a")
                    .append(
                            " purger would measure the purge), so each client thread has its own store (dupguard) or map")
                    .append(" (hand-written) and swaps it for an empty one every ")
                    .append(MemoryImpls.ROTATE_EVERY.toMillis())
                    .append(" ms between calls, forgetting its duplicate ring with it.\n");
        }
        if (o.targets().stream().anyMatch(t -> t != BenchOptions.Target.MEMORY && t != BenchOptions.Target.REDIS)) {
            md.append("- **SQL**: one HikariCP pool of ")
                    .append(o.poolSize())
                    .append(
                            " connections per database, shared by all rows; each row has its own table (the lean ceiling's is")
                    .append(
                            " its own minimal one; the same-table ceiling's is dupguard's shipped DDL under another name),")
                    .append(" truncated before every run and dropped at")
                    .append(
                            " the end; on PostgreSQL a `CHECKPOINT` follows the truncation, so that every run starts with")
                    .append(
                            " the same full-page-write state instead of whichever row meets the next timed checkpoint paying")
                    .append(" for it. H2 is embedded and in-memory. Camel's table is the one its repository creates.")
                    .append(
                            " The transactional rows have two ceilings of their own (*hand-written lean tx*: dedup inside")
                    .append(
                            " the caller's transaction on a minimal table; *hand-written same-table tx*: the same steps on")
                    .append(" dupguard's table); in the *vs lean* and *vs same-table* columns a transactional row is")
                    .append(" compared with those, every other row with the autocommit ceilings.\n");
        }
        if (o.targets().contains(BenchOptions.Target.REDIS)) {
            md.append(
                            "- **Redis**: dupguard's store on its one shared Lettuce connection; the hand-written row on another")
                    .append(
                            " shared Lettuce connection. Keys live under a per-run prefix, deleted (SCAN + UNLINK) before every")
                    .append(" run and at the end.\n");
        }
        md.append('\n');

        md.append("## Targets\n\n");
        md.append("Each target is marked ✅ (met) or ❌ (missed) in the tables below, beside the ratio it is about:")
                .append(" dupguard ≥ ")
                .append(CEILING_TARGET)
                .append("× the hand-written ceiling (H2, Redis) or ≥ ")
                .append(SQL_LEAN_TARGET)
                .append("× the lean one (PostgreSQL, MariaDB), the transactional row likewise against the lean tx")
                .append(" ceiling where the run has one, and ≥ ")
                .append(CAMEL_TARGET)
                .append("× Camel.");
        if (o.targets().contains(BenchOptions.Target.MEMORY)) {
            md.append(" The in-memory store's target is absolute (≥ 2 M ops/s, marked beside its ops/s); its")
                    .append(
                            " hand-written row, a bare `ConcurrentHashMap`, is shown for scale, not as a ceiling to reach.");
        }
        md.append("\n\n");

        md.append("## Results\n\n");
        Map<ImplInfo, String> described = new LinkedHashMap<>();
        boolean[] auditExplained = {false};
        for (StoreReport s : ctx.stores()) {
            md.append(storeSection(s, described, auditExplained));
        }
        return md.toString();
    }

    /**
     * One store's table, rows and audit; a row described under an earlier store ({@code described}: row
     * → that store) is not described again, and the audit's method is explained once per page.
     */
    static String storeSection(StoreReport s, Map<ImplInfo, String> described, boolean[] auditExplained) {
        StringBuilder md = new StringBuilder();
        md.append("### ").append(s.title()).append("\n\n");
        if (s.failure() != null) {
            md.append("Not measured: ").append(Markdown.cell(s.failure())).append("\n\n");
            return md.toString();
        }
        md.append(storeTable(s)).append('\n');
        for (ImplInfo i : s.impls()) {
            md.append("- **").append(i.name()).append("**: ");
            if (described.containsKey(i)) {
                md.append("as described under ").append(described.get(i)).append('\n');
                continue;
            }
            described.put(i, s.title());
            md.append(i.description()).append('\n');
        }
        if (!s.audit().isEmpty()) {
            if (auditExplained[0]) {
                md.append("\nWhat one call sends to the store:\n\n");
            } else {
                auditExplained[0] = true;
                md.append("\nWhat one call sends to the store (counted on one thread, ")
                        .append(Audit.CALLS)
                        .append(
                                " calls on fresh keys, then the same keys again; setAutoCommit counts the calls the code")
                        .append(
                                " makes — HikariCP restores autocommit by itself when a connection comes back with it off):\n\n");
            }
            md.append("| implementation | unique call | duplicate call |\n|---|---|---|\n");
            for (Audit.Row a : s.audit()) {
                md.append("| ")
                        .append(a.impl())
                        .append(" | ")
                        .append(Markdown.cell(a.unique()))
                        .append(" | ")
                        .append(Markdown.cell(a.duplicate()))
                        .append(a.problem() == null ? "" : " ⚠ " + Markdown.cell(a.problem()))
                        .append(" |\n");
            }
        }
        List<String> warnings = new ArrayList<>();
        for (RunResult r : s.runs()) {
            if (r.errors() > 0 || r.ops() == 0) {
                warnings.add(r.impl() + ", " + r.workload().label + ", round " + r.round() + ": " + r.errors()
                        + " failed calls"
                        + (r.firstError() == null
                                ? ""
                                : ", first: " + Markdown.cell(r.firstError().toString())));
            }
            if (r.unexpected() > 0) {
                warnings.add(r.impl() + ", " + r.workload().label + ", round " + r.round() + ": " + r.unexpected()
                        + " calls whose outcome did not match the key (fresh key replayed or duplicate ran the work)");
            }
        }
        if (!warnings.isEmpty()) {
            md.append('\n');
            for (String w : warnings) {
                md.append("- ⚠ ").append(w).append('\n');
            }
        }
        md.append('\n');
        return md.toString();
    }

    static String storeTable(StoreReport s) {
        StringBuilder md = new StringBuilder();
        // Memory and embedded H2 have no server process; whatever the servers did then was someone else's.
        boolean hasServer = s.server() != null && !s.title().equals("H2");
        md.append(
                        "| implementation | workload | ops/s (median) | p50 µs | p99 µs | vs lean | vs same-table | vs Camel |")
                .append(" client CPU µs/call |")
                .append(hasServer ? " server CPU µs/call |" : "")
                .append(" replays |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
                .append(hasServer ? "---:|" : "")
                .append("---:|\n");
        List<ImplInfo> ordered = new ArrayList<>(s.impls());
        ordered.sort(Comparator.comparingInt(i -> i.role().ordinal()));
        boolean hasCamel = withRole(s, BenchImpl.Role.CAMEL).isPresent();
        for (ImplInfo i : ordered) {
            for (Workload w : Workload.values()) {
                boolean ranAny = s.runs().stream().anyMatch(r -> r.impl().equals(i.name()) && r.workload() == w);
                if (!ranAny) {
                    continue; // a workload this row does not take part in
                }
                Optional<Median> b = median(s.runs(), i.name(), w);
                md.append("| ").append(i.name()).append(" | ").append(w.label).append(" | ");
                if (b.isEmpty()) {
                    md.append("failed | | | | | | |")
                            .append(hasServer ? " |" : "")
                            .append(" |\n");
                    continue;
                }
                RunResult r = b.get().round();
                md.append(Markdown.ops(b.get().opsPerSecond()));
                if (s.title().equals("memory") && i.role() == BenchImpl.Role.DUPGUARD) {
                    md.append(b.get().opsPerSecond() >= MEMORY_TARGET_OPS ? " ✅" : " ❌");
                }
                md.append(" | ")
                        .append(Markdown.micros(r.p50Micros()))
                        .append(" | ")
                        .append(Markdown.micros(r.p99Micros()))
                        .append(" | ");
                BenchImpl.Role lean = leanOf(s, i.role());
                BenchImpl.Role same = sameTableOf(s, i.role());
                if (i.role() != lean) {
                    boolean targeted = (i.role() == BenchImpl.Role.DUPGUARD && hasCeilingTarget(s))
                            || (i.role() == BenchImpl.Role.DUPGUARD_TX && lean == BenchImpl.Role.CEILING_TX);
                    ratio(s, i.name(), lean, w).ifPresent(v -> md.append(Markdown.ratio(v))
                            .append(targeted ? (v >= targetFor(s) ? " ✅" : " ❌") : ""));
                }
                md.append(" | ");
                if (i.role() != same) {
                    ratio(s, i.name(), same, w).ifPresent(v -> md.append(Markdown.ratio(v)));
                }
                md.append(" | ");
                if (hasCamel && i.role() == BenchImpl.Role.DUPGUARD_TX) {
                    ratio(s, i.name(), BenchImpl.Role.CAMEL, w)
                            .ifPresent(v -> md.append(Markdown.ratio(v)).append(v >= CAMEL_TARGET ? " ✅" : " ❌"));
                }
                md.append(" | ").append(Markdown.micros(r.clientCpuMicrosPerCall()));
                if (hasServer) {
                    md.append(" | ").append(Markdown.micros(r.serverCpuMicrosPerCall()));
                }
                md.append(" | ").append(Markdown.percent(r.replayShare())).append(" |\n");
            }
        }
        return md.toString();
    }

    /** Every round of every row, for the raw file beside the page. */
    static RawRounds raw(Context ctx, String page) {
        RawRounds raw = new RawRounds(page, ctx.command(), ctx.started(), "calls");
        for (StoreReport s : ctx.stores()) {
            List<ImplInfo> ordered = new ArrayList<>(s.impls());
            ordered.sort(Comparator.comparingInt(i -> i.role().ordinal()));
            for (ImplInfo i : ordered) {
                for (Workload w : Workload.values()) {
                    raw.rounds(
                            s.title(),
                            i.name(),
                            w.label,
                            s.runs().stream()
                                    .filter(r -> r.impl().equals(i.name()) && r.workload() == w)
                                    .toList(),
                            RunResult::round,
                            RunResult::opsPerSecond,
                            RunResult::foreignCpuShare,
                            r -> r.failed() ? "failed: " + r.errors() + " failed calls" : "ok");
                }
            }
        }
        return raw;
    }
}

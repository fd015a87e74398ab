package io.dupguard.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.bench.harness.Cli;
import io.dupguard.bench.harness.CommonOptions;
import io.dupguard.bench.harness.CpuProbe;
import io.dupguard.bench.harness.LoadDriver;
import io.dupguard.bench.harness.LoadOptions;
import io.dupguard.bench.harness.LoadRun;
import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.bench.harness.Markdown;
import io.dupguard.bench.harness.Rounds;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * dupguard on the Galera cluster of {@code scripts/services} (issue 25): claim+complete on {@link
 * JdbcIdempotencyStore} and lock acquire+release on {@link JdbcLockProvider}, with every writer on
 * one node and with the writers spread over the three nodes (thread {@code i} on node {@code i %
 * 3}), next to the same workload on the standalone MariaDB — the per-request cost of certification
 * and {@code wsrep_sync_wait}. After an unmeasured round, every round runs every row once; the table
 * shows the median of the rounds. Run it with {@code scripts/bench-galera}.
 */
public final class GaleraBench {
    private static final byte[] PAYLOAD = "{\"status\":201}".getBytes(StandardCharsets.UTF_8);

    /** Command-line options of {@code scripts/bench-galera}: the shared ones and the nodes. */
    @Command(
            name = "scripts/bench-galera",
            mixinStandardHelpOptions = true,
            defaultValueProvider = Options.Defaults.class,
            description = "Claim+complete and lock acquire+release on Galera: writers on one node, on three, and"
                    + " on the standalone MariaDB.",
            footer = {"", "DURATION: 500ms, 3s, 1.5s, 1m, PT3S, or a plain number of seconds."})
    static final class Options extends LoadOptions {
        static final class Defaults extends CommonOptions.Defaults {
            Defaults() {
                super(Map.of(
                        "--threads", "12",
                        "--prewarm", "2s",
                        "--rounds", "3",
                        "--mariadb-url", "jdbc:mariadb://127.0.0.1:3306/test?user=root&useServerPrepStmts=true",
                        "--galera-urls",
                                "jdbc:mariadb://127.0.0.1:3326/test?user=root&useServerPrepStmts=true"
                                        + "&sessionVariables=wsrep_sync_wait=7,"
                                        + "jdbc:mariadb://127.0.0.1:3327/test?user=root&useServerPrepStmts=true"
                                        + "&sessionVariables=wsrep_sync_wait=7,"
                                        + "jdbc:mariadb://127.0.0.1:3328/test?user=root&useServerPrepStmts=true"
                                        + "&sessionVariables=wsrep_sync_wait=7"));
            }
        }

        @Option(
                names = "--galera-urls",
                paramLabel = "URLS",
                description = "one JDBC URL a node, comma-separated (default: the nodes of scripts/services)")
        String galeraUrls;

        List<String> nodes() {
            return List.of(galeraUrls.split(",(?=jdbc:)"));
        }
    }

    /** Where the writers are: one URL, or one a thread in turn. */
    record Layout(String label, List<String> urls) {}

    /** A workload on the stores over the layout's pools; {@code thread}'s writer uses pool {@code thread % n}. */
    @FunctionalInterface
    interface Workload {
        LoadDriver.WorkerFactory workers(List<HikariDataSource> pools);
    }

    private GaleraBench() {}

    public static void main(String[] args) throws Exception {
        String command = Cli.commandLine("scripts/bench-galera", args);
        System.exit(Cli.run(new Options(), args, o -> run(o, command)));
    }

    static int run(Options o, String command) throws Exception {
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Map<String, String> machine = MachineInfo.collect();
        List<String> nodes = o.nodes();
        List<Layout> layouts = List.of(
                new Layout("standalone MariaDB", List.of(o.mariadbUrl())),
                new Layout("Galera, all writers on node 1", List.of(nodes.get(0))),
                new Layout("Galera, writers on " + nodes.size() + " nodes", nodes));
        Map<String, Workload> workloads = new LinkedHashMap<>();
        workloads.put("claim+complete", GaleraBench::claims);
        workloads.put("lock acquire+release", GaleraBench::locks);
        Map<String, List<LoadRun>> runs = new LinkedHashMap<>();
        long errors = 0;
        for (int round = 0; round <= o.rounds(); round++) { // round 0: unmeasured
            for (Map.Entry<String, Workload> w : workloads.entrySet()) {
                for (Layout layout : layouts) {
                    LoadRun r = measure(o, layout, w.getValue(), round == 0 ? o.prewarm() : o.duration());
                    errors += r.errors();
                    if (round > 0) {
                        runs.computeIfAbsent(w.getKey() + "|" + layout.label(), k -> new ArrayList<>())
                                .add(r);
                    }
                    Cli.log(String.format(
                            Locale.ROOT,
                            "round %d  %-21s %-32s %10s ops/s  p50 %8s µs  p99 %8s µs%s",
                            round,
                            w.getKey(),
                            layout.label(),
                            Markdown.ops(r.opsPerSecond()),
                            Markdown.micros(r.p50Micros()),
                            Markdown.micros(r.p99Micros()),
                            r.errors() > 0 ? "  ERRORS " + r.errors() + ": " + r.firstError() : ""));
                }
            }
        }
        machine.put("Load average 1/5/15 min at end", MachineInfo.loadAverage());
        Markdown.Table t = new Markdown.Table(
                "llrrrrr", "workload", "writers", "ops/s", "p50 µs", "p99 µs", "vs one node", "vs standalone");
        for (String w : workloads.keySet()) {
            double standalone = median(runs.get(w + "|" + layouts.get(0).label()), LoadRun::opsPerSecond);
            double oneNode = median(runs.get(w + "|" + layouts.get(1).label()), LoadRun::opsPerSecond);
            for (Layout layout : layouts) {
                List<LoadRun> rounds = runs.get(w + "|" + layout.label());
                double ops = median(rounds, LoadRun::opsPerSecond);
                t.row(
                        w,
                        layout.label(),
                        Markdown.ops(ops),
                        Markdown.micros(median(rounds, LoadRun::p50Micros)),
                        Markdown.micros(median(rounds, LoadRun::p99Micros)),
                        layout == layouts.get(0) ? "" : Markdown.ratio(ops / oneNode),
                        Markdown.ratio(ops / standalone));
            }
        }
        Cli.publish(command, started, t0, machine, o, t.toString());
        return errors == 0 ? 0 : 1;
    }

    private static double median(List<LoadRun> rounds, ToDoubleFunction<LoadRun> value) {
        return Rounds.median(rounds, value).orElseThrow().value();
    }

    private static LoadRun measure(Options o, Layout layout, Workload workload, Duration window) throws Exception {
        List<HikariDataSource> pools = new ArrayList<>();
        try {
            for (String url : layout.urls()) {
                pools.add(DedupeBench.pool(url, o.threads()));
            }
            return LoadDriver.run(
                    layout.label(),
                    o.threads(),
                    o.warmup(),
                    LoadDriver.Window.lasting(window),
                    workload.workers(pools),
                    ThreadLocalRandom.current().nextLong(),
                    CpuProbe.NONE);
        } finally {
            pools.forEach(HikariDataSource::close);
        }
    }

    private static LoadDriver.WorkerFactory claims(List<HikariDataSource> pools) {
        List<JdbcIdempotencyStore> stores = pools.stream()
                .map(p -> JdbcIdempotencyStore.builder(p)
                        .createSchemaIfMissing(true)
                        .build())
                .toList();
        String scope =
                "bench-galera-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        Duration lease = Duration.ofSeconds(30);
        Duration retention = Duration.ofMinutes(1);
        return (thread, random) -> {
            JdbcIdempotencyStore store = stores.get(thread % stores.size());
            String owner = "bench-" + thread;
            long[] i = {0};
            return tally -> {
                IdempotencyKey key = IdempotencyKey.of(scope, thread + "-" + i[0]++);
                long start = System.nanoTime();
                if (store.claim(key, Fingerprint.none(), owner, lease) != Claim.FRESH) {
                    throw new IllegalStateException("a fresh key was not claimed: " + key);
                }
                store.complete(key, owner, RecordStatus.COMPLETED, PAYLOAD, retention);
                tally.record(System.nanoTime() - start);
            };
        };
    }

    private static LoadDriver.WorkerFactory locks(List<HikariDataSource> pools) {
        List<JdbcLockProvider> providers = pools.stream()
                .map(p ->
                        JdbcLockProvider.builder(p).createSchemaIfMissing(true).build())
                .toList();
        String prefix =
                "bench-galera-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "-";
        LockOptions options =
                LockOptions.custom().leaseTime(Duration.ofSeconds(10)).build();
        return (thread, random) -> {
            JdbcLockProvider locks = providers.get(thread % providers.size());
            return tally -> {
                long start = System.nanoTime();
                Lease lease = locks.tryAcquire(prefix + thread, options)
                        .orElseThrow(() -> new IllegalStateException("an uncontended lock was refused"));
                lease.close();
                tally.record(System.nanoTime() - start);
            };
        };
    }
}

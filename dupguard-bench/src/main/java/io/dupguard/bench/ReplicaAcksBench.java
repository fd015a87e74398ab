package io.dupguard.bench;

import io.dupguard.bench.harness.Cli;
import io.dupguard.bench.harness.CommonOptions;
import io.dupguard.bench.harness.DurationConverter;
import io.dupguard.bench.harness.LoadOptions;
import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.bench.harness.Markdown;
import io.dupguard.bench.harness.Rounds;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.redis.RedisIdempotencyStore;
import io.dupguard.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What {@code replicaAcks} costs (issue 24): claim+complete on {@link RedisIdempotencyStore} and
 * acquire+release on {@link RedisLockProvider}, against the Sentinel-managed master of {@code
 * scripts/services} (found through the Sentinels), without {@code replicaAcks}, with {@code (1, …)}
 * and with {@code (2, …)}, in one JVM. After an unmeasured round, every round runs every row once,
 * the order of the three settings alternating; the table shows the median of the rounds' ops/s and
 * p99. Run it with {@code scripts/bench-replica-acks}.
 */
public final class ReplicaAcksBench {
    private static final byte[] PAYLOAD = "{\"status\":201}".getBytes(StandardCharsets.UTF_8);

    /** Command-line options of {@code scripts/bench-replica-acks}: the shared ones, the Sentinels, the timeout. */
    @Command(
            name = "scripts/bench-replica-acks",
            mixinStandardHelpOptions = true,
            defaultValueProvider = Options.Defaults.class,
            description =
                    "Claim+complete and lock acquire+release on the Sentinel master, with and without replicaAcks.",
            footer = {"", "DURATION: 500ms, 3s, 1.5s, 1m, PT3S, or a plain number of seconds."})
    static final class Options extends LoadOptions {
        static final class Defaults extends CommonOptions.Defaults {
            Defaults() {
                super(Map.of(
                        "--threads", "8",
                        "--prewarm", "1s",
                        "--rounds", "3",
                        "--sentinel", "redis-sentinel://127.0.0.1:26400,127.0.0.1:26401,127.0.0.1:26402/0#dupguard",
                        "--timeout", "1s"));
            }
        }

        @Option(
                names = "--sentinel",
                paramLabel = "URI",
                description = "the Sentinel set and master name (default ${DEFAULT-VALUE})")
        String sentinel;

        @Option(
                names = "--timeout",
                paramLabel = "DURATION",
                converter = DurationConverter.class,
                description = "the replicaAcks timeout (default ${DEFAULT-VALUE})")
        Duration timeout;
    }

    /** One measured window. */
    record Window(double opsPerSecond, double p99Micros, long errors, String firstError) {}

    /** One operation of a thread: {@code i} is unique within the run. */
    @FunctionalInterface
    interface Op {
        void run(int thread, long i);
    }

    private ReplicaAcksBench() {}

    public static void main(String[] args) throws Exception {
        String command = Cli.commandLine("scripts/bench-replica-acks", args);
        System.exit(Cli.run(new Options(), args, o -> run(o, command)));
    }

    static int run(Options o, String command) throws Exception {
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Map<String, String> machine = MachineInfo.collect();
        int[] acks = {0, 1, 2};
        String[] workloads = {"claim+complete", "lock acquire+release"};
        List<List<Window>> windows = rows(acks.length * workloads.length);
        long errors = 0;
        RedisClient client = RedisClient.create(o.sentinel);
        try {
            // Round 0 is an unmeasured pass over every row (JIT, connections, the servers' caches).
            for (int round = 0; round <= o.rounds(); round++) {
                for (int w = 0; w < workloads.length; w++) {
                    for (int k = 0; k < acks.length; k++) {
                        int a = round % 2 == 1 ? k : acks.length - 1 - k; // order alternating
                        Duration window = round == 0 ? o.prewarm() : o.duration();
                        Window r = w == 0 ? claims(client, acks[a], o, window) : locks(client, acks[a], o, window);
                        errors += r.errors();
                        if (round > 0) {
                            windows.get(w * acks.length + a).add(r);
                        }
                        Cli.log(String.format(
                                Locale.ROOT,
                                "round %d  %-21s %-11s %10s ops/s  p99 %8s µs%s",
                                round,
                                workloads[w],
                                label(acks[a], o),
                                Markdown.ops(r.opsPerSecond()),
                                Markdown.micros(r.p99Micros()),
                                r.errors() > 0 ? "  ERRORS " + r.errors() + ": " + r.firstError() : ""));
                    }
                }
            }
        } finally {
            client.shutdown();
        }
        Markdown.Table t = new Markdown.Table("llrrr", "workload", "replicaAcks", "ops/s", "p99 µs", "ops/s vs none");
        for (int w = 0; w < workloads.length; w++) {
            double base = median(windows.get(w * acks.length), Window::opsPerSecond);
            for (int a = 0; a < acks.length; a++) {
                List<Window> rounds = windows.get(w * acks.length + a);
                double ops = median(rounds, Window::opsPerSecond);
                t.row(
                        workloads[w],
                        label(acks[a], o),
                        Markdown.ops(ops),
                        Markdown.micros(median(rounds, Window::p99Micros)),
                        Markdown.ratio(ops / base));
            }
        }
        return report(command, started, t0, machine, Map.of(), o, t, errors);
    }

    /** {@code n} empty lists of windows, one per row. */
    static List<List<Window>> rows(int n) {
        List<List<Window>> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(new ArrayList<>());
        }
        return rows;
    }

    /**
     * Prints the report (command, machine, the table) and writes it to {@code --out}; the exit status:
     * 0 without errors, else 1. Shared with {@link SyncReplicationBench}.
     */
    static int report(
            String command,
            Instant started,
            long t0,
            Map<String, String> machine,
            Map<String, String> servers,
            LoadOptions o,
            Markdown.Table t,
            long errors)
            throws java.io.IOException {
        machine.put("Load average 1/5/15 min at end", MachineInfo.loadAverage());
        Cli.publish(command, started, t0, machine, servers, o, t.toString());
        return errors == 0 ? 0 : 1;
    }

    private static String label(int acks, Options o) {
        return acks == 0 ? "none" : "(" + acks + ", " + Markdown.duration(o.timeout) + ")";
    }

    static double median(List<Window> rounds, ToDoubleFunction<Window> value) {
        return Rounds.median(rounds.stream().mapToDouble(value).toArray());
    }

    private static Window claims(RedisClient client, int acks, Options o, Duration window) throws InterruptedException {
        RedisIdempotencyStore.Builder b = RedisIdempotencyStore.builder(client);
        if (acks > 0) {
            b.replicaAcks(acks, o.timeout);
        }
        String scope =
                "bench-acks-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        try (RedisIdempotencyStore store = b.build()) {
            return measure(o, window, claimAndComplete(store, scope));
        }
    }

    /**
     * Claim of a fresh key of {@code scope} and its completion; the keys go away soon after the
     * run.
     */
    static Op claimAndComplete(IdempotencyStore store, String scope) {
        Duration lease = Duration.ofSeconds(30);
        Duration retention = Duration.ofSeconds(10);
        return (thread, i) -> {
            IdempotencyKey key = IdempotencyKey.of(scope, thread + "-" + i);
            String owner = "bench-" + thread;
            if (store.claim(key, Fingerprint.none(), owner, lease) != Claim.FRESH) {
                throw new IllegalStateException("a fresh key was not claimed: " + key);
            }
            store.complete(key, owner, RecordStatus.COMPLETED, PAYLOAD, retention);
        };
    }

    /** Acquire and release of the thread's own lock, named {@code prefix} + thread. */
    static Op acquireAndRelease(LockProvider locks, String prefix) {
        LockOptions options =
                LockOptions.custom().leaseTime(Duration.ofSeconds(10)).build();
        return (thread, i) -> {
            Lease lease = locks.tryAcquire(prefix + thread, options)
                    .orElseThrow(() -> new IllegalStateException("an uncontended lock was refused"));
            lease.close();
        };
    }

    private static Window locks(RedisClient client, int acks, Options o, Duration window) throws InterruptedException {
        RedisLockProvider.Builder b = RedisLockProvider.builder(client);
        if (acks > 0) {
            b.replicaAcks(acks, o.timeout);
        }
        String prefix =
                "bench-acks-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "-";
        try (RedisLockProvider locks = b.build()) {
            return measure(o, window, acquireAndRelease(locks, prefix));
        }
    }

    /**
     * {@code o.threads()} threads run {@code op} for the warm-up, then for the measured window; the
     * store's connection is opened first. Shared with {@link SyncReplicationBench}.
     */
    static Window measure(LoadOptions o, Duration window, Op op) throws InterruptedException {
        op.run(o.threads(), 0); // opens the connection (Sentinel lookup, eviction check) before any timing
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong errors = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        Histogram[] latencies = new Histogram[o.threads()];
        long[] counts = new long[o.threads()];
        CountDownLatch done = new CountDownLatch(o.threads());
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < o.threads(); t++) {
            int thread = t;
            latencies[t] = new Histogram(60_000_000_000L, 3);
            Thread worker = new Thread(
                    () -> {
                        long i = 0;
                        try {
                            while (!stop.get()) {
                                long start = System.nanoTime();
                                try {
                                    op.run(thread, i++);
                                } catch (RuntimeException e) {
                                    errors.incrementAndGet();
                                    firstError.compareAndSet(null, e.toString());
                                    continue;
                                }
                                if (measuring.get()) {
                                    latencies[thread].recordValue(System.nanoTime() - start);
                                    counts[thread]++;
                                }
                            }
                        } finally {
                            done.countDown();
                        }
                    },
                    "bench-" + t);
            worker.start();
            threads.add(worker);
        }
        Thread.sleep(o.warmup().toMillis());
        measuring.set(true);
        long from = System.nanoTime();
        Thread.sleep(window.toMillis());
        measuring.set(false);
        double seconds = (System.nanoTime() - from) / 1e9;
        stop.set(true);
        done.await();
        Histogram all = new Histogram(60_000_000_000L, 3);
        long ops = 0;
        for (int t = 0; t < o.threads(); t++) {
            all.add(latencies[t]);
            ops += counts[t];
        }
        return new Window(ops / seconds, all.getValueAtPercentile(99) / 1000.0, errors.get(), firstError.get());
    }
}

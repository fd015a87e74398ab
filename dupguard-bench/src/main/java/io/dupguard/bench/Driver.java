package io.dupguard.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop load: N client threads call one implementation back to back, first for the warmup,
 * then for the measured window. Only calls that start inside the window are counted; each call's
 * latency goes into its thread's own {@link Histogram} (no sharing on the hot path), merged at the
 * end. Throughput is counted calls / window length.
 */
final class Driver {
    /** Per-thread ring of recently completed keys that duplicates are drawn from. */
    static final int RING_SIZE = 256;
    /** A worker stops after this many failed calls (a dead server should not spin). */
    static final int MAX_ERRORS_PER_THREAD = 100;

    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;

    /** Keys issued a moment ago by any thread, for {@link Workload#DUP50_RACING}. */
    private static final int RECENT_SIZE = 64;

    private volatile int phase = WARMUP;
    private final AtomicReferenceArray<String> recent = new AtomicReferenceArray<>(RECENT_SIZE);
    private final AtomicLong recentNext = new AtomicLong();

    private Driver() {}

    static RunResult run(
            BenchImpl impl,
            Workload workload,
            int threads,
            Duration warmup,
            Duration duration,
            int round,
            String runTag,
            long seed)
            throws InterruptedException {
        return new Driver().go(impl, workload, threads, warmup, duration, round, runTag, seed);
    }

    private RunResult go(
            BenchImpl impl,
            Workload workload,
            int threads,
            Duration warmup,
            Duration duration,
            int round,
            String runTag,
            long seed)
            throws InterruptedException {
        SplittableRandom seeds = new SplittableRandom(seed);
        List<Worker> workers = new ArrayList<>();
        List<Thread> started = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                Worker w = new Worker(impl, workload, runTag + "t" + i + "-", seeds.split());
                Thread t = new Thread(w, "bench-client-" + i);
                t.setDaemon(true);
                workers.add(w);
                started.add(t);
            }
            started.forEach(Thread::start);
            sleep(warmup);
            ForeignLoad before = ForeignLoad.now();
            phase = MEASURE;
            long t0 = System.nanoTime();
            sleep(duration);
            phase = STOP;
            long t1 = System.nanoTime();
            ForeignLoad after = ForeignLoad.now();
            for (Thread t : started) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                if (t.isAlive()) {
                    throw new IllegalStateException(
                            impl.name() + ": client thread " + t.getName() + " did not stop within 60 s");
                }
            }
            Histogram all = new Histogram(HIGHEST_NANOS, 3);
            long ops = 0, firsts = 0, replays = 0, unexpected = 0, errors = 0;
            Throwable firstError = null;
            for (Worker w : workers) {
                all.add(w.histogram);
                ops += w.ops;
                firsts += w.firsts;
                replays += w.replays;
                unexpected += w.unexpected;
                errors += w.errors;
                if (firstError == null) {
                    firstError = w.firstError;
                }
            }
            return new RunResult(
                    impl.name(),
                    impl.role(),
                    workload,
                    round,
                    ops,
                    (t1 - t0) / 1e9,
                    all,
                    firsts,
                    replays,
                    unexpected,
                    errors,
                    firstError,
                    ForeignLoad.between(before, after));
        } finally {
            phase = STOP;
        }
    }

    private static void sleep(Duration d) throws InterruptedException {
        if (!d.isZero()) {
            Thread.sleep(d.toMillis());
        }
    }

    private final class Worker implements Runnable {
        private final BenchImpl impl;
        private final Workload workload;
        private final String keyPrefix;
        private final SplittableRandom random;
        private final Histogram histogram = new Histogram(HIGHEST_NANOS, 3);
        private final String[] ring = new String[RING_SIZE];
        private int ringSize;
        private int ringNext;
        private long ops;
        private long firsts;
        private long replays;
        private long unexpected;
        private long errors;
        private Throwable firstError;

        Worker(BenchImpl impl, Workload workload, String keyPrefix, SplittableRandom random) {
            this.impl = impl;
            this.workload = workload;
            this.keyPrefix = keyPrefix;
            this.random = random;
        }

        @Override
        public void run() {
            BenchImpl.Client client;
            try {
                client = impl.newClient();
            } catch (RuntimeException e) {
                errors++;
                firstError = e;
                return;
            }
            long seq = 0;
            double dupShare = workload.duplicateShare;
            boolean checkOutcomes = impl.tellsDuplicates() && !workload.racing;
            while (true) {
                int p = phase;
                if (p == STOP) {
                    return;
                }
                String key;
                boolean duplicate = dupShare > 0 && ringSize > 0 && random.nextDouble() < dupShare;
                String racing = duplicate && workload.racing && random.nextBoolean()
                        ? recent.get(random.nextInt(RECENT_SIZE))
                        : null;
                if (racing != null) {
                    key = racing;
                } else if (duplicate) {
                    key = ring[random.nextInt(ringSize)];
                } else {
                    key = keyPrefix + seq;
                    if (workload.racing) {
                        recent.set((int) (recentNext.getAndIncrement() % RECENT_SIZE), key);
                    }
                }
                long s = seq++;
                boolean ran;
                long start = System.nanoTime();
                try {
                    ran = client.call(key, s);
                } catch (Exception | Error e) {
                    errors++;
                    if (firstError == null) {
                        firstError = e;
                    }
                    if (errors >= MAX_ERRORS_PER_THREAD) {
                        return;
                    }
                    continue;
                }
                long nanos = System.nanoTime() - start;
                boolean forgotten = client.afterCall();
                if (p == MEASURE) {
                    histogram.recordValue(Math.min(nanos, HIGHEST_NANOS));
                    ops++;
                    if (ran) {
                        firsts++;
                    } else {
                        replays++;
                    }
                    if (ran == duplicate && checkOutcomes) {
                        unexpected++;
                    }
                }
                if (forgotten) {
                    ringSize = 0;
                    ringNext = 0;
                } else if (ran && !duplicate) {
                    ring[ringNext] = key;
                    ringNext = (ringNext + 1) % RING_SIZE;
                    if (ringSize < RING_SIZE) {
                        ringSize++;
                    }
                }
            }
        }
    }
}

package io.dupguard.bench;

import io.dupguard.bench.harness.CpuProbe;
import io.dupguard.bench.harness.LoadDriver;
import io.dupguard.bench.harness.LoadRun;
import io.dupguard.bench.harness.Tally;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The idempotent-call workload on the {@link LoadDriver}: which key each call uses ({@link
 * Workload}), timing of the call alone, and whether its outcome matched the key (a fresh key must
 * run the work, a duplicate must replay).
 */
final class ExecuteLoad {
    /** Per-thread ring of recently completed keys that duplicates are drawn from. */
    static final int RING_SIZE = 256;

    /** Counters of the run's {@link Tally}. */
    static final int FIRSTS = 0;

    static final int REPLAYS = 1;
    static final int UNEXPECTED = 2;

    /** Keys issued a moment ago by any thread, for {@link Workload#DUP50_RACING}. */
    private static final int RECENT_SIZE = 64;

    private final AtomicReferenceArray<String> recent = new AtomicReferenceArray<>(RECENT_SIZE);
    private final AtomicLong recentNext = new AtomicLong();
    private final BenchImpl impl;
    private final Workload workload;
    private final String runTag;

    private ExecuteLoad(BenchImpl impl, Workload workload, String runTag) {
        this.impl = impl;
        this.workload = workload;
        this.runTag = runTag;
    }

    /** Runs {@code impl} under {@code workload}: {@code warmup}, then {@code window} measured. */
    static RunResult run(
            BenchImpl impl,
            Workload workload,
            int threads,
            Duration warmup,
            LoadDriver.Window window,
            int round,
            String runTag,
            long seed,
            CpuProbe cpu)
            throws Exception {
        ExecuteLoad load = new ExecuteLoad(impl, workload, runTag);
        LoadRun run = LoadDriver.run(impl.name(), threads, warmup, window, load::worker, seed, cpu);
        return new RunResult(impl.name(), impl.role(), workload, round, run);
    }

    /** As above with a measured window of fixed length. */
    static RunResult run(
            BenchImpl impl,
            Workload workload,
            int threads,
            Duration warmup,
            Duration duration,
            int round,
            String runTag,
            long seed,
            CpuProbe cpu)
            throws Exception {
        return run(impl, workload, threads, warmup, LoadDriver.Window.lasting(duration), round, runTag, seed, cpu);
    }

    private LoadDriver.Worker worker(int thread, SplittableRandom random) {
        BenchImpl.Client client = impl.newClient();
        String keyPrefix = runTag + "t" + thread + "-";
        String[] ring = new String[RING_SIZE];
        double dupShare = workload.duplicateShare;
        boolean checkOutcomes = impl.tellsDuplicates() && !workload.racing;
        return new LoadDriver.Worker() {
            private int ringSize;
            private int ringNext;
            private long seq;

            @Override
            public void step(Tally tally) throws Exception {
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
                long start = System.nanoTime();
                boolean ran = client.call(key, s);
                long nanos = System.nanoTime() - start;
                boolean forgotten = client.afterCall();
                tally.record(nanos);
                tally.count(ran ? FIRSTS : REPLAYS);
                if (ran == duplicate && checkOutcomes) {
                    tally.count(UNEXPECTED);
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
        };
    }
}

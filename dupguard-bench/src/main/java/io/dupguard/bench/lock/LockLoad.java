package io.dupguard.bench.lock;

import io.dupguard.bench.harness.CpuProbe;
import io.dupguard.bench.harness.LoadDriver;
import io.dupguard.bench.harness.LoadRun;
import io.dupguard.bench.harness.Tally;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The lock workload on the {@link LoadDriver}: N client threads run lock cycles back to back.
 *
 * <ul>
 *   <li>{@link Mode#UNCONTENDED}: every thread locks and unlocks its own name; the latency is the
 *       acquire + release pair.
 *   <li>{@link Mode#CONTENDED}: every thread locks the same name; each cycle is acquire (timed: the
 *       wait) → a tiny critical section that checks nobody else is inside and increments an
 *       unguarded counter → release. The hand-off gap (previous holder starts releasing → this
 *       acquire returns) goes into the run's second histogram.
 * </ul>
 */
final class LockLoad {
    enum Mode {
        UNCONTENDED("uncontended"),
        CONTENDED("contended");

        final String label;

        Mode(String label) {
            this.label = label;
        }
    }

    // Contended mode: the critical section's shared state.
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicLong acquisitions = new AtomicLong();
    private final AtomicLong releaseStarted = new AtomicLong();
    private long unguardedCounter; // incremented only while holding the lock

    private final LockImpl impl;
    private final Mode mode;

    private LockLoad(LockImpl impl, Mode mode) {
        this.impl = impl;
        this.mode = mode;
    }

    /** Lock name of client thread {@code i} in {@code mode}; each implementation adds its own prefix. */
    static String lockName(Mode mode, int thread) {
        return mode == Mode.CONTENDED ? "shared" : "own-" + thread;
    }

    static LockRun run(
            LockImpl impl, Mode mode, int threads, Duration warmup, Duration duration, int round, CpuProbe cpu)
            throws Exception {
        LockLoad load = new LockLoad(impl, mode);
        LoadRun run = LoadDriver.run(
                impl.name(),
                threads,
                warmup,
                LoadDriver.Window.lasting(duration),
                (thread, random) -> load.worker(lockName(mode, thread)),
                0,
                cpu);
        long lost = mode == Mode.CONTENDED ? load.acquisitions.get() - load.unguardedCounter : 0;
        return new LockRun(impl.name(), impl.role(), mode, round, run, load.overlaps.get() + Math.abs(lost));
    }

    private LoadDriver.Worker worker(String name) {
        LockImpl.Client client = impl.newClient();
        boolean contended = mode == Mode.CONTENDED;
        return (Tally tally) -> {
            long start = System.nanoTime();
            LockImpl.Held held = client.acquire(name);
            long acquired = System.nanoTime();
            long previousRelease = 0;
            if (contended) {
                previousRelease = releaseStarted.get();
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                unguardedCounter++;
                acquisitions.incrementAndGet();
                inside.decrementAndGet();
                releaseStarted.set(System.nanoTime());
            }
            held.release();
            long end = System.nanoTime();
            tally.record((contended ? acquired : end) - start);
            if (contended && previousRelease != 0) {
                tally.recordSecond(acquired - previousRelease);
            }
        };
    }
}

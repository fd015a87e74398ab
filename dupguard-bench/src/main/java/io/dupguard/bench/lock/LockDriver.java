package io.dupguard.bench.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop lock load, in the style of the idempotency bench's driver: N client threads run lock
 * cycles back to back, first for the warmup, then for the measured window. Only cycles that start
 * inside the window are counted; latencies go into per-thread {@link Histogram}s, merged at the end.
 *
 * <ul>
 *   <li>{@link Mode#UNCONTENDED}: every thread locks and unlocks its own name; the latency is the
 *       acquire + release pair.
 *   <li>{@link Mode#CONTENDED}: every thread locks the same name; each cycle is acquire (timed: the
 *       wait) → a tiny critical section that checks nobody else is inside and increments an
 *       unguarded counter → release. The hand-off gap (previous holder starts releasing → this
 *       acquire returns) is recorded too.
 * </ul>
 */
final class LockDriver {
    /** A worker stops after this many failed calls (a dead server should not spin). */
    static final int MAX_ERRORS_PER_THREAD = 100;

    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;

    enum Mode {
        UNCONTENDED("uncontended"),
        CONTENDED("contended");

        final String label;

        Mode(String label) {
            this.label = label;
        }
    }

    private volatile int phase = WARMUP;

    // Contended mode: the critical section's shared state.
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicLong acquisitions = new AtomicLong();
    private final AtomicLong releaseStarted = new AtomicLong();
    private long unguardedCounter; // incremented only while holding the lock

    private LockDriver() {}

    /** Lock name of client thread {@code i} in {@code mode}; each implementation adds its own prefix. */
    static String lockName(Mode mode, int thread) {
        return mode == Mode.CONTENDED ? "shared" : "own-" + thread;
    }

    static LockRun run(LockImpl impl, Mode mode, int threads, Duration warmup, Duration duration, int round)
            throws InterruptedException {
        return run(impl, mode, threads, warmup, duration, round, null);
    }

    /** As above; {@code cpu}, if not null, measures the CPU time of the measured window. */
    static LockRun run(
            LockImpl impl, Mode mode, int threads, Duration warmup, Duration duration, int round, CpuMeter cpu)
            throws InterruptedException {
        return new LockDriver().go(impl, mode, threads, warmup, duration, round, cpu);
    }

    private LockRun go(
            LockImpl impl, Mode mode, int threads, Duration warmup, Duration duration, int round, CpuMeter cpu)
            throws InterruptedException {
        List<Worker> workers = new ArrayList<>();
        List<Thread> started = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                Worker w = new Worker(impl, mode, lockName(mode, i));
                Thread t = new Thread(w, "bench-lock-client-" + i);
                t.setDaemon(true);
                workers.add(w);
                started.add(t);
            }
            started.forEach(Thread::start);
            sleep(warmup);
            phase = MEASURE;
            long t0 = System.nanoTime();
            CpuMeter.Sample cpu0 = cpu == null ? null : cpu.sample();
            sleep(duration);
            CpuMeter.Sample cpu1 = cpu == null ? null : cpu.sample();
            phase = STOP;
            long t1 = System.nanoTime();
            for (Thread t : started) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                if (t.isAlive()) {
                    throw new IllegalStateException(
                            impl.name() + ": client thread " + t.getName() + " did not stop within 60 s");
                }
            }
            Histogram latency = new Histogram(HIGHEST_NANOS, 3);
            Histogram gaps = mode == Mode.CONTENDED ? new Histogram(HIGHEST_NANOS, 3) : null;
            long ops = 0, all = 0, errors = 0, min = Long.MAX_VALUE, max = 0;
            Throwable firstError = null;
            for (Worker w : workers) {
                latency.add(w.latency);
                if (gaps != null) {
                    gaps.add(w.gaps);
                }
                ops += w.ops;
                all += w.cycles;
                errors += w.errors;
                min = Math.min(min, w.ops);
                max = Math.max(max, w.ops);
                if (firstError == null) {
                    firstError = w.firstError;
                }
            }
            long lost = mode == Mode.CONTENDED ? acquisitions.get() - unguardedCounter : 0;
            double jvmCpu = Double.NaN, serverCpu = Double.NaN;
            if (cpu0 != null && cpu0.jvmNanos() >= 0) {
                jvmCpu = cpu1.jvmNanos() - cpu0.jvmNanos();
                if (cpu.measuresServer()) {
                    serverCpu = CpuMeter.serverNanos(cpu0, cpu1);
                }
            }
            return new LockRun(
                    impl.name(),
                    impl.role(),
                    mode,
                    round,
                    ops,
                    (t1 - t0) / 1e9,
                    latency,
                    gaps,
                    overlaps.get() + Math.abs(lost),
                    workers.isEmpty() ? 0 : min,
                    max,
                    all,
                    jvmCpu,
                    serverCpu,
                    errors,
                    firstError);
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
        private final LockImpl impl;
        private final Mode mode;
        private final String name;
        private final Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        private final Histogram gaps = new Histogram(HIGHEST_NANOS, 3);
        private long ops;
        private long cycles;
        private long errors;
        private Throwable firstError;

        Worker(LockImpl impl, Mode mode, String name) {
            this.impl = impl;
            this.mode = mode;
            this.name = name;
        }

        @Override
        public void run() {
            LockImpl.Client client;
            try {
                client = impl.newClient();
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
            boolean contended = mode == Mode.CONTENDED;
            while (true) {
                int p = phase;
                if (p == STOP) {
                    return;
                }
                long start = System.nanoTime();
                LockImpl.Held held;
                try {
                    held = client.acquire(name);
                } catch (Exception | Error e) {
                    if (fail(e)) {
                        return;
                    }
                    continue;
                }
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
                try {
                    held.release();
                } catch (Exception | Error e) {
                    if (fail(e)) {
                        return;
                    }
                    continue;
                }
                long end = System.nanoTime();
                cycles++;
                if (p == MEASURE) {
                    latency.recordValue(Math.min((contended ? acquired : end) - start, HIGHEST_NANOS));
                    if (contended && previousRelease != 0) {
                        gaps.recordValue(Math.max(0, Math.min(acquired - previousRelease, HIGHEST_NANOS)));
                    }
                    ops++;
                }
            }
        }

        /** Records a failure; true if this worker should stop. */
        private boolean fail(Throwable e) {
            errors++;
            if (firstError == null) {
                firstError = e;
            }
            return errors >= MAX_ERRORS_PER_THREAD;
        }
    }
}

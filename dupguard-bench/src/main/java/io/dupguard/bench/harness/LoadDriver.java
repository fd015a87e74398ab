package io.dupguard.bench.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The one closed-loop load driver of every benchmark: N client threads call a {@link Worker} back to
 * back, first for the warmup, then for the measured window, then stop. A step counts when it
 * <em>started</em> inside the window; each thread records into its own {@link Tally} (no sharing on
 * the hot path), merged at the end. Throughput is counted steps / window length.
 *
 * <p>What one step does, what it times and what it counts is the benchmark's business (an idempotent
 * call and its outcome, a lock cycle and its hand-off gap): a new benchmark is a new {@link
 * WorkerFactory}, not a new driver. The measured window normally lasts a fixed time ({@link
 * Window#lasting}); it can also last as long as some job the driver's own thread runs ({@link
 * Window#during}), e.g. a purge while the workload runs.
 */
public final class LoadDriver {
    /** A worker stops after this many failed steps (a dead server should not spin). */
    public static final int MAX_ERRORS_PER_THREAD = 100;

    static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;

    /** One client thread's loop body. Made on that thread when the run starts. */
    @FunctionalInterface
    public interface Worker {
        /**
         * One step (one call, one lock cycle). Records into {@code tally} (which knows whether the step
         * started in the measured window). A thrown exception is counted as an error by the driver.
         */
        void step(Tally tally) throws Exception;
    }

    /** Makes the worker of client thread {@code thread}, with its own random stream. */
    @FunctionalInterface
    public interface WorkerFactory {
        Worker newWorker(int thread, SplittableRandom random) throws Exception;
    }

    /** What the driver's own thread does while the measured window is open. */
    @FunctionalInterface
    public interface Window {
        void run() throws Exception;

        /** A window of fixed length. */
        static Window lasting(Duration d) {
            return () -> sleep(d);
        }

        /** A window that lasts as long as {@code job} runs (on the driver's thread). */
        static Window during(Window job) {
            return job;
        }
    }

    private volatile int phase = WARMUP;

    private LoadDriver() {}

    /**
     * Runs {@code threads} workers: {@code warmup}, then the measured {@code window}.
     *
     * @param label names the threads and the error if a thread does not stop
     * @param seed seeds every thread's random stream (split per thread)
     * @param cpu measures the CPU used during the window
     */
    public static LoadRun run(
            String label, int threads, Duration warmup, Window window, WorkerFactory workers, long seed, CpuProbe cpu)
            throws Exception {
        return new LoadDriver().go(label, threads, warmup, window, workers, seed, cpu);
    }

    private LoadRun go(
            String label, int threads, Duration warmup, Window window, WorkerFactory factory, long seed, CpuProbe cpu)
            throws Exception {
        SplittableRandom seeds = new SplittableRandom(seed);
        List<Client> clients = new ArrayList<>();
        List<Thread> started = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                Client c = new Client(factory, i, seeds.split());
                Thread t = new Thread(c, "bench-client-" + i);
                t.setDaemon(true);
                clients.add(c);
                started.add(t);
            }
            started.forEach(Thread::start);
            sleep(warmup);
            CpuProbe.Open meter = cpu.open();
            phase = MEASURE;
            long t0 = System.nanoTime();
            Exception windowFailure = null;
            try {
                window.run();
            } catch (Exception e) {
                windowFailure = e;
            }
            phase = STOP;
            long t1 = System.nanoTime();
            CpuUsage usage = meter.close();
            for (Thread t : started) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                if (t.isAlive()) {
                    throw new IllegalStateException(
                            label + ": client thread " + t.getName() + " did not stop within 60 s");
                }
            }
            if (windowFailure != null) {
                throw windowFailure;
            }
            return LoadRun.merge(
                    clients.stream().map(c -> c.tally).filter(t -> t != null).toList(), (t1 - t0) / 1e9, usage);
        } finally {
            phase = STOP;
        }
    }

    static void sleep(Duration d) throws InterruptedException {
        if (!d.isZero()) {
            Thread.sleep(d.toMillis());
        }
    }

    private final class Client implements Runnable {
        private final WorkerFactory factory;
        private final int index;
        private final SplittableRandom random;
        /** Made on the client's own thread (in its own allocation buffer, away from the other threads' tallies). */
        Tally tally;

        Client(WorkerFactory factory, int index, SplittableRandom random) {
            this.factory = factory;
            this.index = index;
            this.random = random;
        }

        @Override
        public void run() {
            Tally t = new Tally();
            tally = t; // read by the driver after join()
            Worker worker;
            try {
                worker = factory.newWorker(index, random);
            } catch (Exception | Error e) {
                t.fail(e);
                return;
            }
            while (true) {
                int p = phase;
                if (p == STOP) {
                    return;
                }
                boolean measuring = p == MEASURE;
                if (t.measuring != measuring) {
                    t.measuring = measuring;
                }
                try {
                    worker.step(t);
                    t.steps++;
                } catch (Exception | Error e) {
                    if (t.fail(e) >= MAX_ERRORS_PER_THREAD) {
                        return;
                    }
                }
            }
        }
    }
}

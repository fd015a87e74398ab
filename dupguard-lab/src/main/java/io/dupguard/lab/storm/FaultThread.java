package io.dupguard.lab.storm;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.fault.Fault;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/** One fault injected beside one storm; closing it stops the fault and reports its failure. */
final class FaultThread implements AutoCloseable {
    private final Thread thread;
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final List<Timeline.Window> windows = new CopyOnWriteArrayList<>();

    private FaultThread(Thread thread) {
        this.thread = thread;
    }

    /** When the fault was in effect, in ms since the storm started. */
    List<Timeline.Window> windows() {
        return List.copyOf(windows);
    }

    /** Starts {@code fault} (null: nothing) for the storm that starts now. */
    static FaultThread start(Fault fault, LabEnvironment env, StormSettings settings, Strategy strategy) {
        if (fault == null) {
            return new FaultThread(null);
        }
        long start = System.nanoTime();
        long end = start + settings.duration().toNanos();
        SplittableRandom random = new SplittableRandom(StormDriver.mix(
                settings.seed(), fault.name().hashCode(), strategy.name().hashCode(), 7));
        FaultThread[] self = new FaultThread[1];
        Thread t = new Thread(
                () -> {
                    try {
                        fault.run(
                                env,
                                start,
                                end,
                                random,
                                (from, to) -> self[0].windows.add(
                                        new Timeline.Window((from - start) / 1_000_000, (to - start) / 1_000_000)));
                    } catch (Exception e) {
                        self[0].failure.set(e);
                    }
                },
                "storm-fault-" + fault.name());
        t.setDaemon(true);
        self[0] = new FaultThread(t);
        t.start();
        return self[0];
    }

    /** Waits for the fault to finish (it ends with the storm's duration). */
    @Override
    public void close() {
        if (thread == null) {
            return;
        }
        try {
            thread.join();
        } catch (InterruptedException e) {
            thread.interrupt();
            Thread.currentThread().interrupt();
            return;
        }
        Exception e = failure.get();
        if (e != null) {
            throw new IllegalStateException("the fault could not be injected: " + e.getMessage(), e);
        }
    }
}

package io.dupguard.lab.storm;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Answers per {@value #SLOT_MILLIS} ms since a storm started: attempts that succeeded and attempts
 * that failed with an error, so a faulted run's report shows the stall and the recovery.
 * Thread-safe; answers later than {@link #MAX_SLOTS} slots are counted in the last one.
 */
public final class Timeline {
    public static final int SLOT_MILLIS = 100;
    static final int MAX_SLOTS = 1200; // two minutes

    private final long startNanos;
    private final AtomicLongArray completed = new AtomicLongArray(MAX_SLOTS);
    private final AtomicLongArray errors = new AtomicLongArray(MAX_SLOTS);

    /** One slot: its start in ms since the storm began, successes and errors in it. */
    public record Point(long atMillis, long completed, long errors) {}

    /** A span in ms since the storm began in which a fault was active (equal ends: an instant). */
    public record Window(long fromMillis, long toMillis) {}

    Timeline(long startNanos) {
        this.startNanos = startNanos;
    }

    void completed(long nowNanos) {
        completed.incrementAndGet(slot(nowNanos));
    }

    void error(long nowNanos) {
        errors.incrementAndGet(slot(nowNanos));
    }

    private int slot(long nowNanos) {
        long s = (nowNanos - startNanos) / 1_000_000 / SLOT_MILLIS;
        return (int) Math.max(0, Math.min(MAX_SLOTS - 1, s));
    }

    /** The slots up to the last one with an answer. */
    List<Point> points() {
        int last = -1;
        for (int i = 0; i < MAX_SLOTS; i++) {
            if (completed.get(i) > 0 || errors.get(i) > 0) {
                last = i;
            }
        }
        List<Point> out = new ArrayList<>(last + 1);
        for (int i = 0; i <= last; i++) {
            out.add(new Point((long) i * SLOT_MILLIS, completed.get(i), errors.get(i)));
        }
        return out;
    }
}

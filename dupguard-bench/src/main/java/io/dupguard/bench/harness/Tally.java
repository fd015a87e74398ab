package io.dupguard.bench.harness;

import org.HdrHistogram.Histogram;

/**
 * What one client thread measured: a latency histogram (one value per measured operation), an
 * optional second histogram (e.g. a lock's hand-off gap) and named counters. Used by one thread
 * only; {@link LoadRun#merge} adds the threads' tallies up after the run.
 */
public final class Tally {
    /** Counters a benchmark may use, by index; {@link LoadRun#counter} reads their sums. */
    public static final int COUNTERS = 4;

    final Histogram latency = new Histogram(LoadDriver.HIGHEST_NANOS, 3);
    /** Made on the first value: most benchmarks never record one. */
    Histogram second;

    final long[] counters = new long[COUNTERS];
    boolean measuring;
    long ops;
    long steps;
    long errors;
    Throwable firstError;

    Tally() {}

    /** Whether the current step started inside the measured window. */
    public boolean measuring() {
        return measuring;
    }

    /** Counts one measured operation with its latency; does nothing outside the window. */
    public void record(long nanos) {
        if (measuring) {
            latency.recordValue(clamp(nanos));
            ops++;
        }
    }

    /** Records a value of the second histogram (e.g. a hand-off gap); does nothing outside the window. */
    public void recordSecond(long nanos) {
        if (measuring) {
            if (second == null) {
                second = new Histogram(LoadDriver.HIGHEST_NANOS, 3);
            }
            second.recordValue(clamp(nanos));
        }
    }

    /** Adds one to counter {@code index}; does nothing outside the window. */
    public void count(int index) {
        if (measuring) {
            counters[index]++;
        }
    }

    /** Counts a failed step; returns the errors so far. */
    long fail(Throwable e) {
        errors++;
        if (firstError == null) {
            firstError = e;
        }
        return errors;
    }

    private static long clamp(long nanos) {
        return Math.max(0, Math.min(nanos, LoadDriver.HIGHEST_NANOS));
    }
}

package io.dupguard.bench.lock;

import org.HdrHistogram.Histogram;

/**
 * One measured run of one implementation in one mode.
 *
 * @param ops lock cycles (acquire, critical section, release) started and finished in the measured window
 * @param seconds length of the measured window
 * @param latencyNanos uncontended: acquire + release; contended: the acquire call alone (the wait)
 * @param gapNanos contended only: from the previous holder starting its release to this acquire
 *     returning — how long the lock stood free during a hand-off
 * @param overlaps contended only: entries that found another holder inside the critical section, plus
 *     increments of the unguarded counter that were lost (both must be 0)
 * @param minPerThread fewest cycles one thread completed in the window
 * @param maxPerThread most cycles one thread completed in the window
 * @param allCycles cycles completed in the whole run (warmup and stop included): what the audit divides by
 * @param jvmCpuNanos CPU time this JVM used in the measured window (every thread; NaN if unknown)
 * @param serverCpuNanos CPU time the store's server processes used in the window (NaN if not measured)
 * @param errors calls that threw
 * @param firstError the first exception thrown, if any
 */
record LockRun(
        String impl,
        LockImpl.Role role,
        LockDriver.Mode mode,
        int round,
        long ops,
        double seconds,
        Histogram latencyNanos,
        Histogram gapNanos,
        long overlaps,
        long minPerThread,
        long maxPerThread,
        long allCycles,
        double jvmCpuNanos,
        double serverCpuNanos,
        long errors,
        Throwable firstError) {

    double opsPerSecond() {
        return seconds <= 0 ? 0 : ops / seconds;
    }

    double p50Micros() {
        return percentile(latencyNanos, 50);
    }

    double p99Micros() {
        return percentile(latencyNanos, 99);
    }

    double gapP50Micros() {
        return percentile(gapNanos, 50);
    }

    double gapP99Micros() {
        return percentile(gapNanos, 99);
    }

    /** JVM CPU per measured cycle, µs. */
    double jvmCpuMicrosPerCycle() {
        return ops == 0 ? Double.NaN : jvmCpuNanos / ops / 1000.0;
    }

    /** Server CPU per measured cycle, µs. */
    double serverCpuMicrosPerCycle() {
        return ops == 0 ? Double.NaN : serverCpuNanos / ops / 1000.0;
    }

    /** Cores kept busy by the JVM and the server together during the window (the machine has 2). */
    double coresBusy() {
        double total = jvmCpuNanos + (Double.isNaN(serverCpuNanos) ? 0 : serverCpuNanos);
        return seconds <= 0 ? Double.NaN : total / (seconds * 1e9);
    }

    boolean failed() {
        return errors > 0 || ops == 0 || overlaps > 0;
    }

    private static double percentile(Histogram h, double p) {
        return h == null || h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(p) / 1000.0;
    }
}

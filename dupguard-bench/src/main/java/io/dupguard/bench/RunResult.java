package io.dupguard.bench;

import org.HdrHistogram.Histogram;

/**
 * One measured run of one implementation and workload.
 *
 * @param ops calls completed during the measured window
 * @param seconds length of the measured window
 * @param firsts calls that ran the work
 * @param replays calls that replayed a stored result
 * @param unexpected calls whose outcome did not match the key (a fresh key replayed or a duplicate ran the work)
 * @param errors calls that threw
 * @param firstError the first exception thrown, if any
 * @param cpu CPU used during the window by this JVM, the servers and other processes
 */
record RunResult(
        String impl,
        BenchImpl.Role role,
        Workload workload,
        int round,
        long ops,
        double seconds,
        Histogram latencyNanos,
        long firsts,
        long replays,
        long unexpected,
        long errors,
        Throwable firstError,
        ForeignLoad.Usage cpu) {

    /** Share of the machine's CPU used by other processes during the window (NaN if unknown). */
    double foreignCpuShare() {
        return cpu.foreignShare();
    }

    /** CPU of this JVM (client side: driver and implementation) per call, in µs. */
    double clientCpuMicrosPerCall() {
        return ops == 0 ? Double.NaN : cpu.selfSeconds() * 1e6 / ops;
    }

    /** CPU of the database server processes per call, in µs (0 for memory and H2). */
    double serverCpuMicrosPerCall() {
        return ops == 0 ? Double.NaN : cpu.serverSeconds() * 1e6 / ops;
    }

    double opsPerSecond() {
        return seconds <= 0 ? 0 : ops / seconds;
    }

    double p50Micros() {
        return latencyNanos.getTotalCount() == 0 ? Double.NaN : latencyNanos.getValueAtPercentile(50) / 1000.0;
    }

    double p99Micros() {
        return latencyNanos.getTotalCount() == 0 ? Double.NaN : latencyNanos.getValueAtPercentile(99) / 1000.0;
    }

    /** Share of calls that were replays. */
    double replayShare() {
        return ops == 0 ? 0 : (double) replays / ops;
    }

    boolean failed() {
        return errors > 0 || ops == 0;
    }
}

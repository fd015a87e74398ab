package io.dupguard.bench.harness;

/**
 * CPU used during a measured window, in seconds: by this JVM, by the store's server processes, and
 * the share of the machine (0–1) used by every other process. NaN where unknown or not measured.
 *
 * @param seconds the wall-clock time between the probe's two snapshots, which is close to but not
 *     exactly the measured window ({@link LoadRun} scales the CPU seconds to its window)
 */
public record CpuUsage(double selfSeconds, double serverSeconds, double foreignShare, double seconds) {
    public static final CpuUsage UNKNOWN = new CpuUsage(Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /** CPU seconds of this JVM per second of the probe's window (cores kept busy). */
    public double selfCores() {
        return seconds > 0 ? selfSeconds / seconds : Double.NaN;
    }

    /** CPU seconds of the servers per second of the probe's window (cores kept busy). */
    public double serverCores() {
        return seconds > 0 ? serverSeconds / seconds : Double.NaN;
    }
}

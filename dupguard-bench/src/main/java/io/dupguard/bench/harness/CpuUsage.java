package io.dupguard.bench.harness;

/**
 * CPU used during a measured window, in seconds: by this JVM, by the store's server processes, and
 * the share of the machine (0–1) used by every other process. NaN where unknown or not measured.
 */
public record CpuUsage(double selfSeconds, double serverSeconds, double foreignShare) {
    public static final CpuUsage UNKNOWN = new CpuUsage(Double.NaN, Double.NaN, Double.NaN);
}

package io.dupguard.bench.harness;

/** Measures the CPU used over a window: {@link #open} at its start, {@link Open#close} at its end. */
@FunctionalInterface
public interface CpuProbe {
    /** Measures nothing. */
    CpuProbe NONE = () -> () -> CpuUsage.UNKNOWN;

    Open open();

    /** A window being measured. */
    @FunctionalInterface
    interface Open {
        CpuUsage close();
    }
}

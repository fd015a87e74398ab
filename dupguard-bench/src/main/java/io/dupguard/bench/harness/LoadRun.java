package io.dupguard.bench.harness;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * One measured run of the {@link LoadDriver}: the threads' tallies added up.
 *
 * @param ops operations recorded in the measured window
 * @param seconds length of the measured window
 * @param latencyNanos one value per measured operation
 * @param secondNanos the second histogram (empty unless the benchmark records into it)
 * @param counters the sums of the {@link Tally} counters
 * @param steps every step that completed, warmup and stop included
 * @param minPerThread fewest operations one thread recorded
 * @param maxPerThread most operations one thread recorded
 * @param errors steps that threw
 * @param firstError the first of them, if any
 * @param cpu CPU used during the window
 */
public record LoadRun(
        long ops,
        double seconds,
        Histogram latencyNanos,
        Histogram secondNanos,
        long[] counters,
        long steps,
        long minPerThread,
        long maxPerThread,
        long errors,
        Throwable firstError,
        CpuUsage cpu) {

    static LoadRun merge(List<Tally> tallies, double seconds, CpuUsage cpu) {
        Histogram latency = new Histogram(LoadDriver.HIGHEST_NANOS, 3);
        Histogram second = new Histogram(LoadDriver.HIGHEST_NANOS, 3);
        long[] counters = new long[Tally.COUNTERS];
        long ops = 0, steps = 0, errors = 0, min = Long.MAX_VALUE, max = 0;
        Throwable firstError = null;
        for (Tally t : tallies) {
            latency.add(t.latency);
            if (t.second != null) {
                second.add(t.second);
            }
            for (int i = 0; i < counters.length; i++) {
                counters[i] += t.counters[i];
            }
            ops += t.ops;
            steps += t.steps;
            errors += t.errors;
            min = Math.min(min, t.ops);
            max = Math.max(max, t.ops);
            if (firstError == null) {
                firstError = t.firstError;
            }
        }
        return new LoadRun(
                ops,
                seconds,
                latency,
                second,
                counters,
                steps,
                tallies.isEmpty() ? 0 : min,
                max,
                errors,
                firstError,
                cpu);
    }

    public long counter(int index) {
        return counters[index];
    }

    public double opsPerSecond() {
        return seconds <= 0 ? 0 : ops / seconds;
    }

    public double p50Micros() {
        return percentileMicros(latencyNanos, 50);
    }

    public double p99Micros() {
        return percentileMicros(latencyNanos, 99);
    }

    /**
     * CPU of this JVM per operation, µs (NaN if unknown): its rate over the probe's window times the
     * measured window, divided by the operations.
     */
    public double selfCpuMicrosPerOp() {
        return ops == 0 ? Double.NaN : cpu.selfCores() * seconds * 1e6 / ops;
    }

    /** CPU of the server processes per operation, µs (NaN if not measured), likewise. */
    public double serverCpuMicrosPerOp() {
        return ops == 0 ? Double.NaN : cpu.serverCores() * seconds * 1e6 / ops;
    }

    public static double percentileMicros(Histogram h, double p) {
        return h == null || h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(p) / 1000.0;
    }
}

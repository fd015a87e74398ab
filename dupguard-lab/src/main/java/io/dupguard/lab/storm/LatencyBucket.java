package io.dupguard.lab.storm;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * One bar of a latency distribution.
 *
 * @param upToMicros upper edge (inclusive) of the bucket; the lower edge is the previous bucket's
 * @param count acknowledged requests in it
 */
public record LatencyBucket(long upToMicros, long count) {
    private static final long[] EDGES_MILLIS = {
        1, 2, 3, 5, 7, 10, 15, 20, 30, 40, 50, 70, 100, 150, 200, 300, 500, 1000, 2000, 5000, 10_000
    };

    /**
     * The reports' fixed buckets of a histogram of microseconds: 21 log-spaced edges from 1 ms to
     * 10 s, and one more up to the maximum when anything was slower.
     */
    public static List<LatencyBucket> of(Histogram h) {
        long[] counts = new long[EDGES_MILLIS.length + 1];
        for (HistogramIterationValue v : h.recordedValues()) {
            int i = 0;
            while (i < EDGES_MILLIS.length && v.getValueIteratedTo() > EDGES_MILLIS[i] * 1000) {
                i++;
            }
            counts[i] += v.getCountAddedInThisIterationStep();
        }
        List<LatencyBucket> out = new ArrayList<>();
        for (int i = 0; i < EDGES_MILLIS.length; i++) {
            out.add(new LatencyBucket(EDGES_MILLIS[i] * 1000, counts[i]));
        }
        if (counts[EDGES_MILLIS.length] > 0) {
            out.add(new LatencyBucket(h.getMaxValue(), counts[EDGES_MILLIS.length]));
        }
        return out;
    }

    /** The value at percentile {@code p} of {@code h}, 0 for an empty histogram. */
    public static long percentile(Histogram h, double p) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(p);
    }
}

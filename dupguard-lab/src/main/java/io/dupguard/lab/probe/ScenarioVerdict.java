package io.dupguard.lab.probe;

import io.dupguard.lab.storm.LatencyBucket;
import java.util.List;
import java.util.Map;

/**
 * What one scenario did and found.
 *
 * @param name e.g. {@code concurrent-duplicates}
 * @param description what the scenario does to the service
 * @param verdict {@link #PASS}, {@link #WARN} (every key took effect once, but an answer was not
 *     what a client can rely on: a changed body accepted, a replay that differs), {@link #FAIL} (a
 *     key with duplicate or lost effects) or {@link #INFO} (reported, not judged: the keyless
 *     requests)
 * @param keys every logical request
 * @param requests attempts sent
 * @param answers attempts by outcome ({@code "201" → 3}, {@code "409" → 12}, …)
 * @param p50Micros median attempt latency
 * @param p90Micros 90th percentile
 * @param p99Micros 99th percentile
 * @param maxMicros slowest attempt
 * @param latencyHistogram the attempts' latencies in the reports' buckets
 * @param findings why the verdict is FAIL or WARN, naming the keys
 * @param notes what a reader should know (an attempt answered before the cut, a kill's timing, …)
 */
public record ScenarioVerdict(
        String name,
        String description,
        String verdict,
        List<KeyResult> keys,
        long requests,
        Map<String, Long> answers,
        long p50Micros,
        long p90Micros,
        long p99Micros,
        long maxMicros,
        List<LatencyBucket> latencyHistogram,
        List<String> findings,
        List<String> notes) {
    public static final String PASS = "PASS";
    public static final String WARN = "WARN";
    public static final String FAIL = "FAIL";
    public static final String INFO = "INFO";

    /**
     * A verdict whose latency figures come from {@code histogram} (microseconds per attempt).
     *
     * @return the verdict
     */
    static ScenarioVerdict of(
            String name,
            String description,
            String verdict,
            List<KeyResult> keys,
            org.HdrHistogram.Histogram histogram,
            Map<String, Long> answers,
            List<String> findings,
            List<String> notes) {
        return new ScenarioVerdict(
                name,
                description,
                verdict,
                keys,
                histogram.getTotalCount(),
                answers,
                LatencyBucket.percentile(histogram, 50),
                LatencyBucket.percentile(histogram, 90),
                LatencyBucket.percentile(histogram, 99),
                histogram.getTotalCount() == 0 ? 0 : histogram.getMaxValue(),
                LatencyBucket.of(histogram),
                findings,
                notes);
    }

    public ScenarioVerdict {
        keys = List.copyOf(keys);
        answers = Map.copyOf(answers);
        latencyHistogram = List.copyOf(latencyHistogram);
        findings = List.copyOf(findings);
        notes = List.copyOf(notes);
    }

    /** The keys with a duplicate or a lost effect. */
    public List<KeyResult> brokenKeys() {
        return keys.stream().filter(KeyResult::broken).toList();
    }

    /** Whether no key broke. */
    public boolean ok() {
        return !FAIL.equals(verdict);
    }
}

package io.dupguard.lab.storm;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a checker found in the database after a run — never what a strategy says about itself.
 *
 * @param duplicateEffects effects beyond one per logical request (extra rows, extra charges)
 * @param lost acknowledged requests without their effect (or whose acknowledged answer is not in
 *     the database)
 * @param tamperedCharged effects of tampered duplicates (same key, different payload)
 * @param evidence one line showing an example duplicate, or empty
 * @param violations the workload's own invariants that broke, one line each (an order charged but
 *     marked failed, a stale write accepted); empty if none
 * @param metrics the workload's own counts for the report, in display order (stale writes refused,
 *     orders retried); a metric is not a violation unless it is also listed in {@code violations}
 */
public record Effects(
        long duplicateEffects,
        long lost,
        long tamperedCharged,
        String evidence,
        List<String> violations,
        Map<String, Long> metrics) {

    public Effects {
        violations = List.copyOf(violations);
        metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
    }

    /** These effects with {@code more} metrics after the workload's own. */
    public Effects withMetrics(Map<String, Long> more) {
        Map<String, Long> all = new LinkedHashMap<>(metrics);
        all.putAll(more);
        return new Effects(duplicateEffects, lost, tamperedCharged, evidence, violations, all);
    }

    /** Effects with no workload-specific violations or metrics. */
    public Effects(long duplicateEffects, long lost, long tamperedCharged, String evidence) {
        this(duplicateEffects, lost, tamperedCharged, evidence, List.of(), Map.of());
    }
}

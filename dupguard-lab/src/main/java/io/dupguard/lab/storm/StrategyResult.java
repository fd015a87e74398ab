package io.dupguard.lab.storm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One row of the report: what the client saw and what the checker found for one strategy (under
 * one fault, if the run injected faults). The first eleven components are the JSON contract; the
 * rest are welcome extras; {@code fault} and {@code durable} are set on every row of a faulted
 * run.
 */
public record StrategyResult(
        String name,
        String family,
        long requests,
        long duplicatesSent,
        long duplicatesAbsorbed,
        long duplicateEffects,
        long lost,
        long refused,
        double opsPerSec,
        long p50Micros,
        long p99Micros,
        long p90Micros,
        long maxMicros,
        long acknowledged,
        long attempts,
        long errors,
        String firstError,
        long replayMismatches,
        long tamperedSent,
        long tamperedAccepted,
        long tamperedCharged,
        double seconds,
        String summary,
        String evidence,
        List<String> violations,
        Map<String, Long> metrics,
        boolean ok,
        List<LatencyBucket> latencyHistogram,
        String fault,
        boolean durable,
        List<Timeline.Point> timeline,
        List<Timeline.Window> faultWindows) {

    /** {@link #count(String)}: effects beyond one per logical request, from the database. */
    public static final String DUPLICATE_EFFECTS = "duplicateEffects";
    /** {@link #count(String)}: attempts that failed with an error (not a refusal). */
    public static final String ERRORS = "errors";

    public StrategyResult {
        violations = List.copyOf(violations);
        metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
        latencyHistogram = List.copyOf(latencyHistogram);
        timeline = List.copyOf(timeline);
        faultWindows = List.copyOf(faultWindows);
    }

    /**
     * This row with its timeline (answers per 100 ms) and the fault's active windows; set on
     * faulted rows only, to keep unfaulted reports small.
     */
    public StrategyResult withTimeline(List<Timeline.Point> points, List<Timeline.Window> windows) {
        return new StrategyResult(
                name,
                family,
                requests,
                duplicatesSent,
                duplicatesAbsorbed,
                duplicateEffects,
                lost,
                refused,
                opsPerSec,
                p50Micros,
                p99Micros,
                p90Micros,
                maxMicros,
                acknowledged,
                attempts,
                errors,
                firstError,
                replayMismatches,
                tamperedSent,
                tamperedAccepted,
                tamperedCharged,
                seconds,
                summary,
                evidence,
                violations,
                metrics,
                ok,
                latencyHistogram,
                fault,
                durable,
                points,
                windows);
    }

    public static StrategyResult of(Strategy strategy, Observed seen, Effects found) {
        return of(strategy, seen, found, "", true);
    }

    /**
     * A row of a run under {@code fault} ("" for none). Under a fault, errors surfaced to clients
     * and requests left unacknowledged are allowed (an error is an honest answer); duplicate effects,
     * lost acknowledged requests, wrong replays and accepted tampering are not. On a store setting
     * that cannot keep the promise ({@code durable} false) a dupguard row's violations are reported
     * but do not fail the run.
     */
    public static StrategyResult of(Strategy strategy, Observed seen, Effects found, String fault, boolean durable) {
        Histogram h = seen.latencyMicros();
        double seconds = seen.elapsedNanos() / 1e9;
        List<String> violations = violations(seen, found, !fault.isEmpty());
        return new StrategyResult(
                strategy.name(),
                strategy.family().id(),
                seen.requests(),
                seen.duplicatesSent(),
                Math.max(0, seen.duplicatesSent() - found.duplicateEffects()),
                found.duplicateEffects(),
                found.lost(),
                seen.refused(),
                seconds > 0 ? seen.acknowledged() / seconds : 0,
                LatencyBucket.percentile(h, 50),
                LatencyBucket.percentile(h, 99),
                LatencyBucket.percentile(h, 90),
                h.getTotalCount() == 0 ? 0 : h.getMaxValue(),
                seen.acknowledged(),
                seen.attempts(),
                seen.errors(),
                seen.firstError(),
                seen.replayMismatches(),
                seen.tamperedSent(),
                seen.tamperedAccepted(),
                found.tamperedCharged(),
                seconds,
                strategy.summary(),
                found.evidence(),
                violations,
                found.metrics(),
                violations.isEmpty(),
                LatencyBucket.of(h),
                fault,
                durable,
                List.of(),
                List.of());
    }

    /**
     * A count by name, for a {@link Chart}: {@code duplicateEffects}, {@code lost}, {@code
     * neverAcknowledged} and {@code tamperedAccepted} (requests), {@code refused} and {@code errors}
     * (attempts), or else the key of one of this strategy's {@link #metrics()}.
     *
     * @throws IllegalArgumentException if {@code measure} is none of these
     */
    public long count(String measure) {
        return switch (measure) {
            case DUPLICATE_EFFECTS -> duplicateEffects;
            case "lost" -> lost;
            case "neverAcknowledged" -> requests - acknowledged;
            case "tamperedAccepted" -> tamperedAccepted;
            case "refused" -> refused;
            case ERRORS -> errors;
            default -> {
                Long metric = metrics.get(measure);
                if (metric == null) {
                    throw new IllegalArgumentException(
                            "strategy " + name + " has no count '" + measure + "'; its metrics: " + metrics.keySet());
                }
                yield metric;
            }
        };
    }

    /** The strategy's name, with {@code @fault} on a faulted row: how reports label the row. */
    public String label() {
        return fault.isEmpty() ? name : name + " @" + fault;
    }

    /** Whether this is a dupguard strategy that broke an invariant. */
    public boolean brokenDupguard() {
        return Family.DUPGUARD.id().equals(family) && !ok && durable;
    }

    private static List<String> violations(Observed seen, Effects found, boolean faulted) {
        List<String> out = new ArrayList<>();
        add(out, found.duplicateEffects(), "duplicate effects in the database");
        add(out, found.lost(), "acknowledged requests lost");
        add(out, found.tamperedCharged(), "tampered duplicates took effect");
        add(out, seen.tamperedAccepted(), "tampered duplicates answered with success instead of a refusal");
        add(out, seen.replayMismatches(), "answers differed from their request's first answer");
        if (faulted) {
            out.addAll(found.violations());
            return out; // errors and unanswered requests are honest answers during a fault
        }
        add(out, seen.requests() - seen.acknowledged(), "requests never acknowledged");
        if (seen.errors() > 0) {
            out.add(seen.errors() + " errors (first: " + seen.firstError() + ")");
        }
        out.addAll(found.violations());
        return out;
    }

    private static void add(List<String> out, long n, String what) {
        if (n > 0) {
            out.add(n + " " + what);
        }
    }
}

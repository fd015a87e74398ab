package io.dupguard.lab.storm;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What the driver saw from the client side during one run. Effects in the database are the
 * checker's business ({@link Effects}).
 *
 * @param requests logical requests started
 * @param acknowledged logical requests that got a successful answer
 * @param attempts every send, tampered ones included
 * @param duplicatesSent sends beyond the first per logical request: retries, double sends,
 *     redeliveries
 * @param refused attempts answered with a refusal (tampered, in flight, discarded)
 * @param errors attempts that failed otherwise
 * @param firstError the first error, for the report; empty if none
 * @param replayMismatches answers that differed from their request's first answer
 * @param tamperedSent tampered duplicates sent
 * @param tamperedAccepted tampered duplicates answered with success instead of a refusal
 * @param latencyMicros client-observed latency of acknowledged requests, retries included
 * @param elapsedNanos from the first request until the last client stopped
 * @param ledger every logical request, for the checker
 * @param timeline successes and errors per 100 ms since the start
 */
public record Observed(
        long requests,
        long acknowledged,
        long attempts,
        long duplicatesSent,
        long refused,
        long errors,
        String firstError,
        long replayMismatches,
        long tamperedSent,
        long tamperedAccepted,
        Histogram latencyMicros,
        long elapsedNanos,
        List<Sent> ledger,
        List<Timeline.Point> timeline) {}

package io.dupguard.lab.storm;

/**
 * What a checker found in the database after a run — never what a strategy says about itself.
 *
 * @param duplicateEffects effects beyond one per logical request (extra rows, extra charges)
 * @param lost acknowledged requests without their effect (or whose acknowledged answer is not in
 *     the database)
 * @param tamperedCharged effects of tampered duplicates (same key, different payload)
 * @param evidence one line showing an example duplicate, or empty
 */
public record Effects(long duplicateEffects, long lost, long tamperedCharged, String evidence) {}

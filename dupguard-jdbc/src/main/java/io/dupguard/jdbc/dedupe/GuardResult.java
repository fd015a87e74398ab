package io.dupguard.jdbc.dedupe;

/**
 * What {@code guard} did.
 *
 * @param index the unique index's name
 * @param alreadyPresent whether a valid index was already there
 * @param attempts index builds started
 * @param invalidIndexesDropped INVALID indexes left by failed builds (PostgreSQL) that were dropped
 * @param raceRowsDeleted duplicates inserted by writers during the clean-up or the build, deleted (with backup)
 * @param valid whether the index exists and is valid at the end; the only success
 */
public record GuardResult(
        String index,
        boolean alreadyPresent,
        int attempts,
        int invalidIndexesDropped,
        long raceRowsDeleted,
        boolean valid) {}

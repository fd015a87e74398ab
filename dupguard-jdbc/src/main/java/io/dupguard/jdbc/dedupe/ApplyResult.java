package io.dupguard.jdbc.dedupe;

import java.time.Duration;

/**
 * What {@code apply} did (or, for a dry run, would do).
 *
 * @param runId the run; its deleted rows are in the backup table under this id
 * @param resumed whether the run continued one stopped earlier
 * @param planned rows the plan deletes (conflicting groups excluded)
 * @param conflicts rows of groups the merge check refused (left for a person)
 * @param deleted rows deleted (and copied to the backup), over the whole run
 * @param skipped planned rows not deleted because they or their kept row changed or vanished
 * @param batches batches committed by this call
 * @param finished whether the run reached the end of its plan
 * @param dryRun whether nothing was written
 * @param elapsed time of this call
 */
public record ApplyResult(
        String runId,
        boolean resumed,
        long planned,
        long conflicts,
        long deleted,
        long skipped,
        long batches,
        boolean finished,
        boolean dryRun,
        Duration elapsed) {}

package io.dupguard.jdbc.dedupe;

/**
 * What {@code restore} did.
 *
 * @param runId the run whose rows were put back
 * @param restored rows inserted back into the table
 * @param alreadyPresent backed-up rows whose id was already in the table again (left out)
 */
public record RestoreResult(String runId, long restored, long alreadyPresent) {}

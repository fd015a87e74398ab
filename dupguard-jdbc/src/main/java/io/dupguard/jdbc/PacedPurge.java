package io.dupguard.jdbc;

import io.dupguard.internal.Checks;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;

/**
 * Deletes a backlog of expired rows in batches, pacing the batches so that deleting takes at most
 * a given share of the time — the <em>duty cycle</em>. After a batch that took {@code t}, it pauses
 * {@code t × (1 − d) / d}: at {@code d = 0.1} a 5 ms batch is followed by a 45 ms pause. A slow
 * database (a long batch) is so given a longer rest, and the purge's throughput follows what the
 * database can spare instead of a fixed row count per run: it adapts where a batch cap has to be
 * sized by hand for the day's volume.
 *
 * <pre>{@code
 * PacedPurge paced = PacedPurge.dutyCycle(0.1);
 * long deleted = paced.drain(500, store::purgeExpired);
 * }</pre>
 *
 * <p>Immutable and thread-safe; {@link #drain} runs on the calling thread.
 */
public final class PacedPurge {
    private final double dutyCycle;
    private final long maxBatches;
    /** Added to every pause: {@link JdbcIdempotencyStore#purgeAllExpired}'s fixed pause. */
    private final long extraPauseNanos;

    private final LongSupplier nanoTime;
    private final Sleeper sleeper;

    /** How the pause is taken; a test's clock replaces it. */
    interface Sleeper {
        void sleep(long nanos) throws InterruptedException;
    }

    PacedPurge(double dutyCycle, long maxBatches, LongSupplier nanoTime, Sleeper sleeper) {
        this(dutyCycle, maxBatches, 0, nanoTime, sleeper);
    }

    private PacedPurge(
            double dutyCycle, long maxBatches, long extraPauseNanos, LongSupplier nanoTime, Sleeper sleeper) {
        if (!(dutyCycle > 0 && dutyCycle <= 1)) {
            throw new IllegalArgumentException(
                    "dutyCycle must be more than 0 and at most 1 (1: back to back), was " + dutyCycle);
        }
        this.dutyCycle = dutyCycle;
        if (maxBatches < 0) {
            throw new IllegalArgumentException("maxBatches must be at least 0 (0: no cap), was " + maxBatches);
        }
        this.maxBatches = maxBatches;
        this.extraPauseNanos = extraPauseNanos;
        this.nanoTime = nanoTime;
        this.sleeper = sleeper;
    }

    /**
     * A purge that deletes at most {@code dutyCycle} of the time, with no cap on the batches of one
     * {@link #drain}.
     *
     * @param dutyCycle the share of the time spent deleting: more than 0, at most 1 (1 runs the
     *     batches back to back)
     * @return the paced purge; never null
     * @throws IllegalArgumentException if {@code dutyCycle} is out of range (or NaN)
     */
    public static PacedPurge dutyCycle(double dutyCycle) {
        return new PacedPurge(dutyCycle, 0, System::nanoTime, TimeUnit.NANOSECONDS::sleep);
    }

    /**
     * The same purge, stopping each {@link #drain} after {@code maxBatches} batches.
     *
     * @param maxBatches the most batches per drain, or 0 for no cap
     * @return a new paced purge; never null
     * @throws IllegalArgumentException if {@code maxBatches} is negative
     */
    public PacedPurge maxBatches(long maxBatches) {
        return new PacedPurge(dutyCycle, maxBatches, extraPauseNanos, nanoTime, sleeper);
    }

    /** The same purge, pausing {@code pause} more after every full batch (a fixed rest). */
    PacedPurge plusPause(Duration pause) {
        long nanos = Checks.notNegative(pause, "pause").toNanos();
        return new PacedPurge(dutyCycle, maxBatches, nanos, nanoTime, sleeper);
    }

    /**
     * The share of the time spent deleting.
     *
     * @return more than 0, at most 1
     */
    public double dutyCycle() {
        return dutyCycle;
    }

    /**
     * Calls {@code deleteBatch} with {@code batchSize} until a batch deletes fewer rows than that
     * (the backlog is gone) or the batch cap is reached, pausing after each full batch as the duty
     * cycle says. An interrupt during a pause ends the drain early, with the thread's interrupt
     * status set; what was deleted stays deleted. An exception from {@code deleteBatch} ends it too,
     * and propagates.
     *
     * @param batchSize the rows asked of each batch, at least 1
     * @param deleteBatch deletes up to its argument's worth of rows and returns how many it deleted,
     *     such as {@link JdbcIdempotencyStore#purgeExpired(int)}; not null
     * @return the rows deleted
     * @throws IllegalArgumentException if {@code batchSize} is less than 1
     */
    public long drain(int batchSize, IntUnaryOperator deleteBatch) {
        Checks.atLeast(batchSize, 1, "batchSize");
        Objects.requireNonNull(deleteBatch, "deleteBatch");
        long total = 0;
        for (long batches = 1; ; batches++) {
            long started = nanoTime.getAsLong();
            int n = deleteBatch.applyAsInt(batchSize);
            long took = nanoTime.getAsLong() - started;
            total += n;
            if (n < batchSize || batches == maxBatches) {
                return total;
            }
            long pause = extraPauseNanos + (dutyCycle >= 1 ? 0 : (long) (took * ((1 - dutyCycle) / dutyCycle)));
            if (pause > 0) {
                try {
                    sleeper.sleep(pause);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return total;
                }
            }
        }
    }

    @Override
    public String toString() {
        return "PacedPurge[dutyCycle=" + dutyCycle + (maxBatches == 0 ? "" : ", maxBatches=" + maxBatches) + "]";
    }
}

package io.dupguard.idempotency;

import java.util.List;

/**
 * The work of {@link Idempotency#executeBatch}: handles the entries this call claimed and reports
 * each one's outcome to {@link Progress} as soon as its effect is done.
 *
 * <p>What is reported is what gets recorded. If the work throws, the entries reported {@link
 * Progress#done done} are recorded (they replay on redelivery) and the claims of all others are
 * released so a retry runs them; if it returns, an entry it did not report counts as failed.
 *
 * @param <T> the result type
 * @param <E> the checked exception the work may throw
 */
@FunctionalInterface
public interface BatchWork<T, E extends Exception> {
    /**
     * Handles the claimed entries.
     *
     * @param claimed the entries this call owns, in batch order; never empty
     * @param progress where each entry's outcome is reported, once per entry
     * @throws E to stop the batch: done entries stay recorded, the others are released
     */
    void run(List<BatchEntry> claimed, Progress<T> progress) throws E;

    /**
     * Where {@link BatchWork} reports each claimed entry's outcome. Not thread-safe unless the work
     * synchronises its calls.
     *
     * @param <T> the result type
     */
    interface Progress<T> {
        /**
         * The entry's effect is done; {@code value} is recorded as its result.
         *
         * @param key a claimed key not reported before; not null
         * @param value the result; may be null
         * @throws IllegalArgumentException if the key is not claimed by this batch or was reported
         */
        void done(IdempotencyKey key, T value);

        /**
         * The entry failed: stored for replay if the {@link FailurePolicy} calls {@code failure}
         * final, else released so a retry runs it again. The batch goes on.
         *
         * @param key a claimed key not reported before; not null
         * @param failure the failure; not null
         * @throws IllegalArgumentException if the key is not claimed by this batch or was reported
         */
        void failed(IdempotencyKey key, Throwable failure);
    }
}

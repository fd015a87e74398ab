package io.dupguard.jdbc.dedupe;

import java.time.Duration;
import java.util.Optional;

/**
 * Progress of {@code apply} after a batch.
 *
 * @param runId the run
 * @param done planned rows handled so far (deleted or skipped), over the whole run
 * @param total planned rows of the run
 * @param deleted rows deleted so far, over the whole run
 * @param rowsPerSecond rows handled per second by this call
 * @param eta time left at that rate, empty before the rate is known
 */
public record Progress(
        String runId, long done, long total, long deleted, double rowsPerSecond, Optional<Duration> eta) {
    /** Called after every committed batch, on the thread running {@code apply}. */
    @FunctionalInterface
    public interface Listener {
        /**
         * Receives progress; throwing stops the run after the committed batch (it can be resumed).
         *
         * @param progress the progress after the latest committed batch; never null
         */
        void onBatch(Progress progress);

        /**
         * Ignores progress.
         *
         * @return a listener that does nothing
         */
        static Listener none() {
            return p -> {};
        }
    }
}

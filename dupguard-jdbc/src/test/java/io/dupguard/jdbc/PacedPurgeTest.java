package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The pacing arithmetic on a test clock: every batch takes 10 ms of it. */
class PacedPurgeTest {
    private static final long BATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private long now;
    private final List<Long> pauses = new ArrayList<>();

    private PacedPurge paced(double dutyCycle, long maxBatches) {
        return new PacedPurge(dutyCycle, maxBatches, () -> now, nanos -> {
            pauses.add(nanos);
            now += nanos;
        });
    }

    /** A backlog of {@code rows}: each call deletes up to its argument, taking 10 ms. */
    private java.util.function.IntUnaryOperator backlog(long rows) {
        long[] left = {rows};
        return n -> {
            now += BATCH_NANOS;
            int deleted = (int) Math.min(n, left[0]);
            left[0] -= deleted;
            return deleted;
        };
    }

    @Test
    void aTenPercentDutyCyclePausesNineTimesEachBatchAndDrainsTheBacklog() {
        long deleted = paced(0.1, 0).drain(500, backlog(1_750));

        assertThat(deleted).isEqualTo(1_750);
        // four batches (500, 500, 500, 250): a pause after each full one, none after the short one
        assertThat(pauses).containsExactly(90_000_000L, 90_000_000L, 90_000_000L);
        assertThat(now).isEqualTo(4 * BATCH_NANOS + 3 * 90_000_000L);
    }

    @Test
    void aDutyCycleOfOneRunsTheBatchesBackToBack() {
        assertThat(paced(1, 0).drain(100, backlog(1_000))).isEqualTo(1_000);
        assertThat(pauses).isEmpty();
    }

    @Test
    void theBatchCapEndsADrainBeforeTheBacklogIsGone() {
        assertThat(paced(0.5, 3).drain(100, backlog(1_000))).isEqualTo(300);
        assertThat(pauses).containsExactly(BATCH_NANOS, BATCH_NANOS);
    }

    @Test
    void anInterruptedPauseEndsTheDrainAndKeepsTheInterruptStatus() {
        PacedPurge interrupted = new PacedPurge(0.5, 0, () -> now, nanos -> {
            throw new InterruptedException();
        });
        try {
            assertThat(interrupted.drain(100, backlog(1_000))).isEqualTo(100);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aFixedPauseIsAddedToThePacedOne() {
        paced(0.5, 0).plusPause(java.time.Duration.ofMillis(3)).drain(100, backlog(250));
        assertThat(pauses).containsExactly(BATCH_NANOS + 3_000_000L, BATCH_NANOS + 3_000_000L);
    }

    /** A store outage mid-drain surfaces: it never reads as "the backlog is gone". */
    @Test
    void aFailingBatchEndsTheDrainWithItsException() {
        int[] calls = {0};
        java.util.function.IntUnaryOperator failsSecond = n -> {
            if (++calls[0] == 2) {
                throw new io.dupguard.StoreUnavailableException("jdbc", "connection refused", null);
            }
            now += BATCH_NANOS;
            return n;
        };
        assertThatThrownBy(() -> paced(0.5, 0).drain(100, failsSecond))
                .isInstanceOf(io.dupguard.StoreUnavailableException.class)
                .hasMessageContaining("connection refused");
        assertThat(calls[0]).isEqualTo(2);
    }

    @Test
    void outOfRangeSettingsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> PacedPurge.dutyCycle(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dutyCycle must be more than 0 and at most 1");
        assertThatThrownBy(() -> PacedPurge.dutyCycle(1.5)).hasMessageContaining("dutyCycle");
        assertThatThrownBy(() -> PacedPurge.dutyCycle(Double.NaN)).hasMessageContaining("dutyCycle");
        assertThatThrownBy(() -> PacedPurge.dutyCycle(0.1).maxBatches(-1)).hasMessageContaining("maxBatches");
        assertThatThrownBy(() -> PacedPurge.dutyCycle(0.1).drain(0, n -> 0)).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> PacedPurge.dutyCycle(1).plusPause(java.time.Duration.ofMillis(-1)))
                .hasMessageContaining("pause");
    }
}

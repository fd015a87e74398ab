package io.dupguard.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The one load driver, with real threads: what it counts, and how it stops. */
class LoadDriverTest {

    @Test
    void countsEveryMeasuredStepOfEveryThreadOnce() throws Exception {
        int threads = 8;
        AtomicLong measuredCalls = new AtomicLong();
        CountDownLatch enough = new CountDownLatch(5_000);
        // The window lasts until the workers have made 5 000 measured steps: no timing involved.
        LoadRun run = LoadDriver.run(
                "test",
                threads,
                Duration.ZERO,
                LoadDriver.Window.during(
                        () -> assertThat(enough.await(30, TimeUnit.SECONDS)).isTrue()),
                (thread, random) -> tally -> {
                    tally.record(1_000);
                    tally.count(thread % 2);
                    if (tally.measuring()) {
                        measuredCalls.incrementAndGet();
                        enough.countDown();
                    }
                },
                42,
                CpuProbe.NONE);

        assertThat(run.ops()).isGreaterThanOrEqualTo(5_000).isEqualTo(measuredCalls.get());
        assertThat(run.latencyNanos().getTotalCount()).isEqualTo(run.ops());
        assertThat(run.counter(0) + run.counter(1)).isEqualTo(run.ops());
        assertThat(run.steps()).isGreaterThanOrEqualTo(run.ops());
        assertThat(run.minPerThread()).isLessThanOrEqualTo(run.maxPerThread());
        assertThat(run.errors()).isZero();
        assertThat(run.p50Micros()).isEqualTo(1.0);
        assertThat(run.opsPerSecond()).isPositive();
    }

    @Test
    void aFailingWorkerStopsAfterItsErrorBudgetAndTheFirstErrorIsKept() throws Exception {
        CountDownLatch allStopped = new CountDownLatch(2 * LoadDriver.MAX_ERRORS_PER_THREAD);
        LoadRun run = LoadDriver.run(
                "failing",
                2,
                Duration.ZERO,
                LoadDriver.Window.during(
                        () -> assertThat(allStopped.await(30, TimeUnit.SECONDS)).isTrue()),
                (thread, random) -> tally -> {
                    allStopped.countDown();
                    throw new IllegalStateException("store down");
                },
                1,
                CpuProbe.NONE);

        assertThat(run.errors()).isEqualTo(2L * LoadDriver.MAX_ERRORS_PER_THREAD);
        assertThat(run.firstError()).hasMessage("store down");
        assertThat(run.ops()).isZero();
    }

    @Test
    void aWindowThatFailsFailsTheRunAfterTheClientsStopped() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LoadDriver.run(
                        "window",
                        2,
                        Duration.ZERO,
                        LoadDriver.Window.during(() -> {
                            throw new java.io.IOException("purge failed");
                        }),
                        (thread, random) -> tally -> tally.record(1),
                        1,
                        CpuProbe.NONE))
                .hasMessage("purge failed");
    }

    @Test
    void medianOfRounds() {
        java.util.List<Double> rounds = java.util.List.of(3.0, 1.0, 2.0, 10.0);
        Rounds.Median<Double> m = Rounds.median(rounds, d -> d).orElseThrow();
        assertThat(m.value()).isEqualTo(2.5);
        assertThat(m.round()).isIn(2.0, 3.0);
        assertThat(Rounds.median(java.util.List.of(5.0, 1.0, 3.0), d -> d)
                        .orElseThrow()
                        .value())
                .isEqualTo(3.0);
        assertThat(Rounds.median(java.util.List.<Double>of(), d -> d)).isEmpty();
    }
}

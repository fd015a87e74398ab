package io.dupguard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The renewal cadence: failures are retried within the lease; only a refusal or the lease's end loses it. */
class WatchdogTest {
    private static final Duration LEASE = Duration.ofMillis(900);

    @Test
    void transientFailuresAreRetriedAndRenewalGoesOn() {
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger lostCalls = new AtomicInteger();
        Watchdog.Renewal r = Watchdog.shared()
                .start(
                        LEASE,
                        System.nanoTime(),
                        () -> {
                            int n = calls.incrementAndGet();
                            if (n <= 2) {
                                throw new IllegalStateException("store blip #" + n);
                            }
                            return true;
                        },
                        lostCalls::incrementAndGet);
        try {
            // Two failures, then successes go on for several more renewal periods.
            await().atMost(Duration.ofSeconds(20)).until(() -> calls.get() >= 6);
            assertThat(r.lost()).isFalse();
            assertThat(r.failures()).isZero();
            assertThat(lostCalls).hasValue(0);
        } finally {
            r.stop();
        }
    }

    @Test
    void aRefusalLosesTheLeaseAtOnce() {
        AtomicInteger lostCalls = new AtomicInteger();
        Watchdog.Renewal r = Watchdog.shared().start(LEASE, System.nanoTime(), () -> false, lostCalls::incrementAndGet);

        // lost() turns true just before the callback runs on the renewal thread: wait for the callback.
        await().atMost(Duration.ofSeconds(10)).until(() -> lostCalls.get() > 0);
        assertThat(r.lost()).isTrue();
        assertThat(lostCalls).hasValue(1);
    }

    /**
     * Every attempt fails — the store throws, or a driver throws an {@link Error} — so the attempts
     * follow the backoff (at L/3, then after L/24 doubling, one last try before the end: a handful,
     * where every 20 ms tick of the 600 ms left would be about 30) and the lease is lost once, when
     * it runs out.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void failingEveryTimeLosesTheLeaseOnlyWhenItRunsOut(boolean error) {
        long start = System.nanoTime();
        AtomicInteger attempts = new AtomicInteger();
        AtomicLong lostAt = new AtomicLong();
        AtomicInteger lostCalls = new AtomicInteger();
        Watchdog.Renewal r = Watchdog.shared()
                .start(
                        LEASE,
                        start,
                        () -> {
                            attempts.incrementAndGet();
                            if (error) {
                                throw new AssertionError("a driver's bug");
                            }
                            throw new IllegalStateException("store down");
                        },
                        () -> {
                            lostAt.set(System.nanoTime());
                            lostCalls.incrementAndGet();
                        });

        await().atMost(Duration.ofSeconds(10)).until(() -> lostCalls.get() > 0);
        assertThat(r.lost()).isTrue();
        assertThat(lostAt.get() - start).isGreaterThanOrEqualTo(LEASE.toNanos());
        assertThat(attempts.get()).isBetween(3, 12); // the regular one and retries
        assertThat(lostCalls).hasValue(1);
    }

    @Test
    void anAttemptThatHangsPastTheLeaseLosesIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger lostCalls = new AtomicInteger();
        Watchdog.Renewal r = Watchdog.shared()
                .start(
                        LEASE,
                        System.nanoTime(),
                        () -> {
                            try {
                                release.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return true;
                        },
                        lostCalls::incrementAndGet);
        try {
            await().atMost(Duration.ofSeconds(10)).until(r::lost);
            // lost() turns true just before the callback runs on a renewal thread.
            await().atMost(Duration.ofSeconds(10)).until(() -> lostCalls.get() > 0);
            assertThat(lostCalls).hasValue(1);
        } finally {
            release.countDown();
        }
        assertThat(r.lost()).isTrue(); // a late success does not revive a lost lease
    }

    /**
     * A holder's lease-lost callback that blocks holds up only itself: another lease that runs out
     * meanwhile is still reported on time, by the same watchdog.
     */
    @Test
    void aCallbackThatBlocksDoesNotHoldUpAnotherLeasesLoss() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch firstTold = new CountDownLatch(1);
        CountDownLatch secondTold = new CountDownLatch(1);
        Watchdog.Renewal first = Watchdog.shared().start(LEASE, System.nanoTime(), hangUntil(release), () -> {
            firstTold.countDown();
            awaitQuietly(release); // a listener stuck on a slow sink
        });
        Watchdog.Renewal second = null;
        try {
            assertThat(firstTold.await(10, TimeUnit.SECONDS)).isTrue();
            second = Watchdog.shared().start(LEASE, System.nanoTime(), hangUntil(release), secondTold::countDown);
            assertThat(secondTold.await(10, TimeUnit.SECONDS))
                    .as("the second lease's loss is reported while the first callback still blocks")
                    .isTrue();
            assertThat(second.lost()).isTrue();
        } finally {
            release.countDown();
            first.stop();
            if (second != null) {
                second.stop();
            }
        }
    }

    /** A callback that throws an {@link Error} ends neither the watchdog nor its later reports. */
    @Test
    void aCallbackThatThrowsAnErrorDoesNotEndTheWatchdog() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch firstTold = new CountDownLatch(1);
        CountDownLatch secondTold = new CountDownLatch(1);
        try {
            Watchdog.shared().start(LEASE, System.nanoTime(), hangUntil(release), () -> {
                firstTold.countDown();
                throw new AssertionError("a test's listener failing");
            });
            assertThat(firstTold.await(10, TimeUnit.SECONDS)).isTrue();
            Watchdog.shared().start(LEASE, System.nanoTime(), hangUntil(release), secondTold::countDown);
            assertThat(secondTold.await(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            release.countDown();
        }
    }

    /** A renewal that hangs until {@code release}: only the watchdog's own clock can end its lease. */
    private static java.util.function.BooleanSupplier hangUntil(CountDownLatch release) {
        return () -> {
            awaitQuietly(release);
            return true;
        };
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void stoppedRenewalNeverReportsALoss() {
        AtomicInteger lostCalls = new AtomicInteger();
        Watchdog.Renewal r = Watchdog.shared().start(LEASE, System.nanoTime(), () -> false, lostCalls::incrementAndGet);
        r.stop();
        await().pollDelay(LEASE.multipliedBy(2)).atMost(LEASE.multipliedBy(4)).until(() -> true);
        assertThat(lostCalls).hasValue(0);
        assertThat(r.lost()).isFalse();
    }
}

package io.dupguard.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.token.SubmitThrottle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Behaviour every {@link SubmitThrottle} backend must show against its real server (guarantee T3). */
public abstract class AbstractSubmitThrottleContractTest {
    private static final int THREADS = 32;

    private String scope;
    private ExecutorService pool;

    /**
     * The throttle under test.
     *
     * @return the same instance on every call within a test
     */
    protected abstract SubmitThrottle throttle();

    /**
     * The same throttle through separate connections (another machine). Defaults to {@link
     * #throttle()}.
     *
     * @return a throttle on the same server as {@link #throttle()}
     */
    protected SubmitThrottle otherMachine() {
        return throttle();
    }

    @BeforeEach
    void setUpThrottle() {
        scope = "thr-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void tearDownThrottle() {
        pool.shutdownNow();
    }

    /** Only the first submit in a window passes. */
    @Test
    public void onlyTheFirstSubmitInAWindowPasses() {
        Duration window = Duration.ofMinutes(1);
        assertThat(throttle().tryAcquire(scope, "user-1", window)).isTrue();
        assertThat(otherMachine().tryAcquire(scope, "user-1", window)).isFalse();
        assertThat(throttle().tryAcquire(scope, "user-2", window)).isTrue();
    }

    /**
     * Thirty-two concurrent submits have one winner.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void thirtyTwoConcurrentSubmitsHaveOneWinner() throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            SubmitThrottle t = i % 2 == 0 ? throttle() : otherMachine();
            results.add(pool.submit(() -> {
                start.await();
                return t.tryAcquire(scope, "user-3", Duration.ofMinutes(1));
            }));
        }
        start.countDown();
        int winners = 0;
        for (Future<Boolean> f : results) {
            winners += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertThat(winners).isEqualTo(1);
    }

    /** A new window opens after the old one ends. */
    @Test
    public void aNewWindowOpensAfterTheOldOneEnds() {
        Duration window = Duration.ofMillis(300);
        assertThat(throttle().tryAcquire(scope, "user-4", window)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> throttle().tryAcquire(scope, "user-4", window));
        assertThat(throttle().tryAcquire(scope, "user-4", window)).isFalse();
    }

    /** Rejects bad window. */
    @Test
    public void rejectsBadWindow() {
        assertThatThrownBy(() -> throttle().tryAcquire(scope, "u", Duration.ofSeconds(-5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("window");
    }
}

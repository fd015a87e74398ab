package io.dupguard.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.idempotency.Outcome;
import io.dupguard.token.PreparedSubmissions;
import io.dupguard.token.UnknownSubmissionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Behaviour every {@link PreparedSubmissions} backend must show (guarantee T2). */
public abstract class AbstractPreparedSubmissionsContractTest {
    private static final int THREADS = 32;
    /** Well-formed (27 URL-safe characters, the shape of an issued id) but never issued. */
    private static final String NEVER_ISSUED = "A".repeat(27);

    private ExecutorService pool;

    /**
     * The store under test.
     *
     * @return the same instance on every call within a test
     */
    protected abstract PreparedSubmissions submissions();

    /**
     * The same store through separate connections (another machine). Defaults to {@link
     * #submissions()}.
     *
     * @return a store on the same server as {@link #submissions()}
     */
    protected PreparedSubmissions otherMachine() {
        return submissions();
    }

    @BeforeEach
    void setUpPrepared() {
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void tearDownPrepared() {
        pool.shutdownNow();
    }

    /** First commit binds and repeats get the bound id. */
    @Test
    public void firstCommitBindsAndRepeatsGetTheBoundId() {
        String preId = submissions().prepare("author-1");
        AtomicInteger posts = new AtomicInteger();

        Outcome<String> first = submissions().commit("author-1", preId, () -> "post-" + posts.incrementAndGet());
        Outcome<String> again = otherMachine().commit("author-1", preId, () -> "post-" + posts.incrementAndGet());

        assertThat(first).isEqualTo(Outcome.first("post-1"));
        assertThat(again).isEqualTo(Outcome.replayed("post-1"));
        assertThat(posts).hasValue(1);
    }

    /**
     * Thirty-two concurrent commits create one business row.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void thirtyTwoConcurrentCommitsCreateOneBusinessRow() throws Exception {
        String preId = submissions().prepare("author-2");
        AtomicInteger posts = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Outcome<String>>> results = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            PreparedSubmissions s = i % 2 == 0 ? submissions() : otherMachine();
            results.add(pool.submit(() -> {
                start.await();
                return s.commit("author-2", preId, () -> "post-" + posts.incrementAndGet());
            }));
        }
        start.countDown();
        int firsts = 0;
        String bound = null;
        for (Future<Outcome<String>> f : results) {
            Outcome<String> o = f.get(60, TimeUnit.SECONDS);
            bound = bound == null ? o.value() : bound;
            assertThat(o.value()).isEqualTo(bound);
            firsts += o.isReplay() ? 0 : 1;
        }
        assertThat(firsts).isEqualTo(1);
        assertThat(posts.get()).isBetween(1, workRunsWhenCommitsRace());
        if (workRunsWhenCommitsRace() == 1) {
            assertThat(bound).isEqualTo("post-1");
        }
    }

    /**
     * How often the work of one pre-id may run when both machines commit it at once: 1 where the
     * store's row lock holds for every machine; on a cluster whose nodes lock rows only for
     * themselves (Galera), once per machine — one run is bound and every caller gets its result.
     *
     * @return the most runs of the work the test accepts
     */
    protected int workRunsWhenCommitsRace() {
        return 1;
    }

    /** Failed work leaves the pre-id unbound for a retry. */
    @Test
    public void failedWorkLeavesThePreIdUnboundForARetry() {
        String preId = submissions().prepare("author-3");
        assertThatThrownBy(() -> submissions().commit("author-3", preId, () -> {
                    throw new IllegalStateException("db hiccup");
                }))
                .isInstanceOf(IllegalStateException.class);

        assertThat(submissions().commit("author-3", preId, () -> "post-9")).isEqualTo(Outcome.first("post-9"));
    }

    /** Unknown or foreign pre-id is a clear error. */
    @Test
    public void unknownOrForeignPreIdIsAClearError() {
        String preId = submissions().prepare("alice");

        assertThatThrownBy(() -> submissions().commit("mallory", preId, () -> "x"))
                .isInstanceOf(UnknownSubmissionException.class);
        assertThatThrownBy(() -> submissions().commit("alice", "no-such-id", () -> "x"))
                .isInstanceOf(UnknownSubmissionException.class);
        assertThatThrownBy(() -> submissions().commit("alice", NEVER_ISSUED, () -> "x"))
                .isInstanceOf(UnknownSubmissionException.class)
                .hasMessageContaining("open the form again");
        assertThat(submissions().commit("alice", preId, () -> "mine")).isEqualTo(Outcome.first("mine"));
    }
}

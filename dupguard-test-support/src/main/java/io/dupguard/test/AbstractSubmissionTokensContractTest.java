package io.dupguard.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.TokenClaim;
import io.dupguard.token.TokenRefusedException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Behaviour every {@link SubmissionTokens} backend must show against its real server (guarantee T1). */
public abstract class AbstractSubmissionTokensContractTest {
    private static final int THREADS = 64;
    /** Well-formed (27 URL-safe characters, the shape of an issued token) but never issued. */
    private static final String NEVER_ISSUED = "A".repeat(27);

    private String scope;
    private ExecutorService pool;

    /**
     * The tokens under test.
     *
     * @return the same instance on every call within a test
     */
    protected abstract SubmissionTokens tokens();

    /**
     * The same store through a separate connection (another machine). Defaults to {@link #tokens()}.
     *
     * @return tokens on the same server as {@link #tokens()}
     */
    protected SubmissionTokens otherMachine() {
        return tokens();
    }

    /**
     * Tokens configured against an address where no server answers (the in-memory store: one whose
     * every call throws {@link StoreUnavailableException}).
     *
     * @return tokens whose every operation fails to reach its server
     */
    protected abstract SubmissionTokens unreachableTokens();

    @BeforeEach
    void setUpTokens() {
        scope = "tok-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void tearDownTokens() {
        pool.shutdownNow();
    }

    /** First submit consumes the token and the second is refused. */
    @Test
    public void firstSubmitConsumesTheTokenAndTheSecondIsRefused() {
        String token = tokens().issue(scope, "user-1", Duration.ofMinutes(5));

        assertThat(tokens().consume(scope, "user-1", token)).isTrue();
        assertThat(otherMachine().consume(scope, "user-1", token)).isFalse();
    }

    /** Tokens are URL-safe and unique. */
    @Test
    public void tokensAreUrlSafeAndUnique() {
        String a = tokens().issue(scope, "user-1", Duration.ofMinutes(5));
        String b = tokens().issue(scope, "user-1", Duration.ofMinutes(5));
        assertThat(a).isNotEqualTo(b).matches("[A-Za-z0-9_-]{22,}");
    }

    /**
     * Sixty-four concurrent submits of one token have one winner.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void sixtyFourConcurrentSubmitsOfOneTokenHaveOneWinner() throws Exception {
        String token = tokens().issue(scope, "user-2", Duration.ofMinutes(5));
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            SubmissionTokens t = i % 2 == 0 ? tokens() : otherMachine();
            results.add(pool.submit(() -> {
                start.await();
                return t.consume(scope, "user-2", token);
            }));
        }
        start.countDown();
        int winners = 0;
        for (Future<Boolean> f : results) {
            winners += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertThat(winners).isEqualTo(1);
    }

    /** Token of another subject is refused and stays valid for its owner. */
    @Test
    public void tokenOfAnotherSubjectIsRefusedAndStaysValidForItsOwner() {
        String token = tokens().issue(scope, "alice", Duration.ofMinutes(5));

        assertThat(tokens().consume(scope, "mallory", token)).isFalse();
        assertThat(tokens().consume(scope, "alice", token)).isTrue();
    }

    /** Token of another scope is refused. */
    @Test
    public void tokenOfAnotherScopeIsRefused() {
        String token = tokens().issue(scope, "alice", Duration.ofMinutes(5));
        assertThat(tokens().consume(scope + "x", "alice", token)).isFalse();
        assertThat(tokens().consume(scope, "alice", token)).isTrue();
    }

    /** Expired token is refused. */
    @Test
    public void expiredTokenIsRefused() {
        Duration ttl = Duration.ofMillis(300);
        String token = tokens().issue(scope, "bob", ttl);
        // Probes issued just after tell us, by the store's own clock, when the TTL has passed:
        // each poll spends one probe; the first refused probe means bob's token expired too.
        java.util.Iterator<String> probes = java.util.stream.Stream.generate(() -> tokens().issue(scope, "probe", ttl))
                .limit(400)
                .toList()
                .iterator();
        await().atMost(Duration.ofSeconds(8))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> probes.hasNext() && !tokens().consume(scope, "probe", probes.next()));

        assertThat(tokens().consume(scope, "bob", token)).isFalse();
    }

    /** Malformed and unknown tokens are refused without error. */
    @Test
    public void malformedAndUnknownTokensAreRefusedWithoutError() {
        for (String bad : new String[] {null, "", "short", "x".repeat(500), "../../etc/passwd", "a b c", "ÄÖÜ"}) {
            assertThat(tokens().consume(scope, "user-1", bad)).isFalse();
        }
        assertThat(tokens().consume(scope, "user-1", NEVER_ISSUED)).isFalse();
    }

    /** Longest TTL is stored and longer or malformed input is refused. */
    @Test
    public void longestTtlIsStoredAndLongerOrMalformedInputIsRefused() {
        String token = tokens().issue(scope, "user-9", IdempotencyConfig.MAX_DURATION);
        assertThat(otherMachine().consume(scope, "user-9", token)).isTrue();

        assertThatThrownBy(() -> tokens().issue(scope, "u", ChronoUnit.FOREVER.getDuration()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl")
                .hasMessageContaining("100 years");
        assertThatThrownBy(() -> tokens().issue(scope, "u\uD800", Duration.ofMinutes(1)))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessageContaining("surrogate");
    }

    /**
     * A failed attempt puts the token back: the retry runs, and once it succeeded the token is spent.
     *
     * @throws Exception what the test's work threw unexpectedly: the test fails
     */
    @Test
    public void failedAttemptLeavesTheTokenUsable() throws Exception {
        String token = tokens().issue(scope, "carol", Duration.ofMinutes(5));
        AtomicInteger runs = new AtomicInteger();

        assertThatThrownBy(() -> tokens().execute(scope, "carol", token, () -> {
                    runs.incrementAndGet();
                    throw new java.io.IOException("the business write failed");
                }))
                .isInstanceOf(java.io.IOException.class);
        // A claim that ends in release (try-with-resources without complete) puts it back too.
        try (TokenClaim claim = otherMachine().claim(scope, "carol", token).orElseThrow()) {
            assertThat(claim.leaseLost()).isFalse();
        }
        assertThat(otherMachine().execute(scope, "carol", token, runs::incrementAndGet))
                .isEqualTo(2);
        assertThat(runs).hasValue(2);
    }

    /**
     * While an attempt runs, every concurrent duplicate (64 threads, two clients) is refused and
     * exactly one effect happens.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void concurrentDuplicatesDuringTheAttemptAreRefused() throws Exception {
        String token = tokens().issue(scope, "dave", Duration.ofMinutes(5));
        AtomicInteger effects = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch refused = new CountDownLatch(THREADS - 1);
        List<Future<String>> results = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            SubmissionTokens t = i % 2 == 0 ? tokens() : otherMachine();
            int n = i;
            results.add(pool.submit(() -> {
                start.await();
                try {
                    return t.execute(scope, "dave", token, () -> {
                        effects.incrementAndGet();
                        // The winner holds the token until every duplicate was refused.
                        assertThat(refused.await(30, TimeUnit.SECONDS)).isTrue();
                        return "ran";
                    });
                } catch (TokenRefusedException e) {
                    refused.countDown();
                    return n % 3 == 0 && t.consume(scope, "dave", token) ? "consumed" : "refused";
                }
            }));
        }
        start.countDown();
        List<String> answers = new ArrayList<>();
        for (Future<String> f : results) {
            answers.add(f.get(60, TimeUnit.SECONDS));
        }
        assertThat(answers).containsOnlyOnce("ran").doesNotContain("consumed");
        assertThat(effects).hasValue(1);
        assertThat(tokens().claim(scope, "dave", token)).isEmpty();
    }

    /**
     * A claim whose process died (its lease is never renewed, completed or released) keeps the
     * token until the lease runs out, then frees it; the dead owner's late completion is refused
     * once another submit spent it.
     */
    @Test
    public void crashedAttemptFreesTheTokenAfterItsLease() {
        String token = tokens().issue(scope, "erin", Duration.ofMinutes(5));
        assertThat(tokens().tryLease(scope, "erin", token, "crashed-owner", SubmissionTokens.MIN_LEASE))
                .isTrue();
        assertThat(otherMachine().claim(scope, "erin", token)).as("in use").isEmpty();
        assertThat(otherMachine().consume(scope, "erin", token)).as("in use").isFalse();

        TokenClaim[] taken = new TokenClaim[1];
        await().atMost(Duration.ofSeconds(8))
                .pollInterval(Duration.ofMillis(20))
                .until(() ->
                        (taken[0] = otherMachine().claim(scope, "erin", token).orElse(null)) != null);
        taken[0].complete();

        assertThat(tokens().completeLease(scope, token, "crashed-owner")).isFalse();
        assertThat(tokens().claim(scope, "erin", token)).isEmpty();
    }

    /**
     * An owner whose lease ran out while its work still ran, then completed: another submit took
     * the token over and failed (released it). The late completion still spends the token, since
     * the work ran: no third attempt may run it again.
     */
    @Test
    public void aLateCompletionAfterATakeoverThatFailedStillSpendsTheToken() {
        String token = tokens().issue(scope, "hugo", Duration.ofMinutes(5));
        assertThat(tokens().tryLease(scope, "hugo", token, "slow-owner", SubmissionTokens.MIN_LEASE))
                .isTrue();
        TokenClaim[] taken = new TokenClaim[1];
        await().atMost(Duration.ofSeconds(8))
                .pollInterval(Duration.ofMillis(20))
                .until(() ->
                        (taken[0] = otherMachine().claim(scope, "hugo", token).orElse(null)) != null);
        taken[0].release();

        tokens().completeLease(scope, token, "slow-owner");

        assertThat(otherMachine().claim(scope, "hugo", token)).as("spent").isEmpty();
        assertThat(otherMachine().consume(scope, "hugo", token)).as("spent").isFalse();
    }

    /**
     * A retry that waits for the attempt in flight runs once that attempt failed, and is refused
     * once it completed.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void waitingRetryRunsAfterAFailedAttemptAndIsRefusedAfterACompletedOne() throws Exception {
        Duration wait = Duration.ofSeconds(20);
        String failing = tokens().issue(scope, "gina", Duration.ofMinutes(5));
        TokenClaim first = tokens().claim(scope, "gina", failing).orElseThrow();
        assertThat(otherMachine().leased(scope, failing)).isTrue();
        Future<String> retry = pool.submit(() ->
                otherMachine().execute(scope, "gina", failing, SubmissionTokens.DEFAULT_LEASE, wait, () -> "retried"));
        await().during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(2))
                .alias("waits while the first attempt holds the token")
                .until(() -> !retry.isDone());
        first.release();
        assertThat(retry.get(30, TimeUnit.SECONDS)).isEqualTo("retried");
        assertThat(tokens().leased(scope, failing)).isFalse();

        String succeeding = tokens().issue(scope, "gina", Duration.ofMinutes(5));
        TokenClaim second = tokens().claim(scope, "gina", succeeding).orElseThrow();
        Future<String> duplicate = pool.submit(() ->
                otherMachine().execute(scope, "gina", succeeding, SubmissionTokens.DEFAULT_LEASE, wait, () -> "twice"));
        second.complete();
        assertThatThrownBy(() -> duplicate.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(TokenRefusedException.class);
    }

    /**
     * A token claimed near the end of its life lives while the claim holds it; released, it gets its
     * own expiry back instead of the lease's, so an abandoned form's token still expires on time.
     */
    @Test
    public void aReleasedTokenKeepsItsOwnExpiry() {
        String token = tokens().issue(scope, "ivan", Duration.ofMillis(300));
        TokenClaim first = tokens().claim(scope, "ivan", token).orElseThrow();
        first.release();

        awaitExpired(
                "ivan",
                token,
                Duration.ofSeconds(8),
                "the token expires at its own end, not at the end of the released lease");
    }

    /**
     * A renewal that carries the token past its own end (a long submit) does not give it the
     * lease's life: released, it still expires at its own end.
     */
    @Test
    public void aTokenRenewedPastItsOwnEndStillExpiresAtItsOwnEndWhenReleased() {
        String token = tokens().issue(scope, "jane", Duration.ofSeconds(1));
        assertThat(tokens().tryLease(scope, "jane", token, "long-submit", SubmissionTokens.MIN_LEASE))
                .isTrue();
        assertThat(tokens().renewLease(scope, token, "long-submit", Duration.ofSeconds(20)))
                .isTrue();
        tokens().releaseLease(scope, token, "long-submit");

        awaitExpired(
                "jane", token, Duration.ofSeconds(10), "the token expires at its own end, not 20 s after the renewal");
    }

    /**
     * Waits until another machine can no longer claim {@code token}; each claim that still succeeds
     * is released at once (which must not extend the token's life).
     */
    private void awaitExpired(String subject, String token, Duration atMost, String why) {
        await().atMost(atMost).pollInterval(Duration.ofMillis(20)).alias(why).until(() -> {
            java.util.Optional<TokenClaim> again = otherMachine().claim(scope, subject, token);
            again.ifPresent(TokenClaim::release);
            return again.isEmpty();
        });
    }

    /** A completed token is never usable again, by any form, on any machine. */
    @Test
    public void completedTokenIsNeverUsableAgain() {
        String token = tokens().issue(scope, "frank", Duration.ofMinutes(5));
        assertThat(tokens().execute(scope, "frank", token, () -> "done")).isEqualTo("done");

        assertThatThrownBy(() -> otherMachine().execute(scope, "frank", token, () -> "again"))
                .isInstanceOf(TokenRefusedException.class);
        assertThat(otherMachine().claim(scope, "frank", token)).isEmpty();
        assertThat(otherMachine().consume(scope, "frank", token)).isFalse();
        assertThat(tokens().tryLease(scope, "frank", token, "late", Duration.ofSeconds(5)))
                .isFalse();
    }

    /** A claim refuses another subject, a malformed token and a too-short lease. */
    @Test
    public void claimRefusesAnotherSubjectAndMalformedInput() {
        String token = tokens().issue(scope, "alice", Duration.ofMinutes(5));
        assertThat(tokens().claim(scope, "mallory", token)).isEmpty();
        assertThat(tokens().claim(scope, "alice", "short")).isEmpty();
        assertThat(tokens().claim(scope, "alice", null)).isEmpty();
        assertThatThrownBy(() -> tokens().claim(scope, "alice", token, Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
        assertThat(tokens().execute(scope, "alice", token, () -> 1)).isEqualTo(1);
    }

    /** A store outage raises on every form; it is never read as "already submitted". */
    @Test
    @ExpectedWarnings("a driver may warn that it cannot reach the unreachable store")
    public void storeOutageRaises() {
        SubmissionTokens down = unreachableTokens();
        AtomicInteger effects = new AtomicInteger();
        assertThatThrownBy(() -> down.issue(scope, "u", Duration.ofSeconds(5)))
                .isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> down.consume(scope, "u", NEVER_ISSUED)).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> down.execute(scope, "u", NEVER_ISSUED, effects::incrementAndGet))
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(effects).hasValue(0);
    }

    /** Rejects a bad scope, subject and TTL. */
    @Test
    public void rejectsBadScopeSubjectAndTtl() {
        assertThatThrownBy(() -> tokens().issue("", "u", Duration.ofMinutes(1)))
                .isInstanceOf(InvalidIdentifierException.class);
        assertThatThrownBy(() -> tokens().issue(scope, " ", Duration.ofMinutes(1)))
                .isInstanceOf(InvalidIdentifierException.class);
        assertThatThrownBy(() -> tokens().issue(scope, "u", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl");
    }
}

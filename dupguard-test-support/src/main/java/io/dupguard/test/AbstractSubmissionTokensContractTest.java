package io.dupguard.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.token.SubmissionTokens;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Behaviour every {@link SubmissionTokens} backend must show against its real server (SPEC T1). */
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

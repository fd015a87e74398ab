package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Redlock options, quorum and timing arithmetic; nothing here talks to a server. */
class RedlockProviderTest {
    private static final List<RedisURI> THREE = List.of(
            RedisURI.create("redis://127.0.0.1:7100"),
            RedisURI.create("redis://127.0.0.1:7101"),
            RedisURI.create("redis://127.0.0.1:7102"));
    private static RedisClient client;

    @BeforeAll
    static void createClient() {
        client = RedisClient.create();
    }

    @AfterAll
    static void shutdown() {
        client.shutdown();
    }

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void validityIsTheLeaseMinusElapsedMinusOnePercentAndTwoMilliseconds() {
        // 10 s lease, 30 ms spent: 10000 - 30 - (100 + 2) = 9868 ms.
        assertThat(RedlockQuorum.validityNanos(ms(10_000), ms(30), 0.01)).isEqualTo(ms(9_868));
        // 300 ms lease: drift 5 ms, so 295 ms spent leaves nothing.
        assertThat(RedlockQuorum.validityNanos(ms(300), ms(294), 0.01)).isPositive();
        assertThat(RedlockQuorum.validityNanos(ms(300), ms(295), 0.01)).isNotPositive();
    }

    @Test
    void theDefaultNodeTimeoutIsATenthOfTheLeaseUpToFiftyMilliseconds() {
        try (RedlockProvider locks = RedlockProvider.create(client, THREE)) {
            RedlockQuorum redlock = new RedlockQuorum(List.of(), new LockKeys("p:"), null, 0.01);
            assertThat(redlock.nodeTimeoutNanos(ms(30_000))).isEqualTo(ms(50));
            assertThat(redlock.nodeTimeoutNanos(ms(300))).isEqualTo(ms(30));
            assertThat(new RedlockQuorum(List.of(), new LockKeys("p:"), Duration.ofMillis(200), 0.01)
                            .nodeTimeoutNanos(ms(300)))
                    .isEqualTo(ms(200));
            assertThat(locks.quorum()).isEqualTo(2);
        }
    }

    @Test
    void aMajorityIsTheQuorum() {
        List<RedisURI> five = List.of(
                RedisURI.create("redis://a"),
                RedisURI.create("redis://b"),
                RedisURI.create("redis://c"),
                RedisURI.create("redis://d"),
                RedisURI.create("redis://e"));
        try (RedlockProvider locks = RedlockProvider.create(client, five)) {
            assertThat(locks.quorum()).isEqualTo(3);
        }
        try (RedlockProvider locks = RedlockProvider.create(client, five.subList(0, 4))) {
            assertThat(locks.quorum()).isEqualTo(3);
        }
    }

    @Test
    void needsThreeDistinctNodes() {
        assertThatThrownBy(() -> RedlockProvider.create(client, THREE.subList(0, 2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("number of nodes must be at least 3");
        List<RedisURI> twice = List.of(THREE.get(0), THREE.get(1), RedisURI.create("redis://127.0.0.1:7100/2"));
        assertThatThrownBy(() -> RedlockProvider.create(client, twice))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("127.0.0.1:7100 is listed twice");
        assertThatThrownBy(() -> RedlockProvider.create(null, THREE)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void rejectsBadOptionsNamingTheField() {
        RedlockProvider.Builder builder = RedlockProvider.builder(client, THREE);
        assertThatThrownBy(() -> builder.nodeTimeout(Duration.ZERO)).hasMessageContaining("nodeTimeout");
        assertThatThrownBy(() -> builder.clockDriftFactor(-0.1)).hasMessageContaining("clockDriftFactor");
        assertThatThrownBy(() -> builder.clockDriftFactor(Double.NaN)).hasMessageContaining("clockDriftFactor");
        assertThatThrownBy(() -> builder.keyPrefix("a{b")).hasMessageContaining("keyPrefix");
    }
}

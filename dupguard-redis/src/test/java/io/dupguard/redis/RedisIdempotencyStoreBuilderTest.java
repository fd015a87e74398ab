package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.idempotency.IdempotencyKey;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Options and key naming; nothing here talks to a server (building a store does not connect). */
class RedisIdempotencyStoreBuilderTest {
    private static RedisClient client;

    @BeforeAll
    static void createClient() {
        client = RedisClient.create(RedisURI.create(RedisFixtures.DEAD_URL));
    }

    @AfterAll
    static void shutdown() {
        client.shutdown();
    }

    @Test
    void defaultPrefixAndHashTaggedKeyName() {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.create(client)) {
            assertThat(store.keyPrefix())
                    .isEqualTo(RedisIdempotencyStore.DEFAULT_KEY_PREFIX)
                    .isEqualTo("dupguard:idem:");
            assertThat(store.redisKey(IdempotencyKey.of("payments", "order:7")))
                    .isEqualTo("dupguard:idem:{payments:order:7}");
        }
    }

    @Test
    void customPrefix() {
        try (RedisIdempotencyStore store =
                RedisIdempotencyStore.builder(client).keyPrefix("app1/").build()) {
            assertThat(store.redisKey(IdempotencyKey.of("s", "k"))).isEqualTo("app1/{s:k}");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "a b", "tab\there", "line\nbreak", "nul\u0000", "nbsp\u00a0", "{tag}:", "x}"})
    void badPrefixesAreRejectedAtOnceNamingTheField(String prefix) {
        RedisIdempotencyStore.Builder builder = RedisIdempotencyStore.builder(client);
        assertThatThrownBy(() -> builder.keyPrefix(prefix))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix");
    }

    @Test
    void nullArgumentsAreRejected() {
        assertThatThrownBy(() -> RedisIdempotencyStore.builder(client).keyPrefix(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisIdempotencyStore.create((RedisClient) null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RedisIdempotencyStore.create((RedisClusterClient) null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RedisIdempotencyStore.create(client, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void replicaAcksAreCheckedAtOnceNamingTheFieldAndTheLimit() {
        List<BiConsumer<Integer, Duration>> options = List.of(
                (n, t) -> RedisIdempotencyStore.builder(client).replicaAcks(n, t),
                (n, t) -> RedisLockProvider.builder(client).replicaAcks(n, t),
                (n, t) -> RedisSubmissionTokens.builder(client).replicaAcks(n, t),
                (n, t) -> RedisSubmitThrottle.builder(client).replicaAcks(n, t));
        for (BiConsumer<Integer, Duration> replicaAcks : options) {
            assertThatThrownBy(() -> replicaAcks.accept(0, Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("replicaAcks replicas must be at least 1, was 0");
            assertThatThrownBy(() -> replicaAcks.accept(1, Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("replicaAcks timeout must be positive and at most PT30S, was PT0S");
            assertThatThrownBy(() -> replicaAcks.accept(1, Duration.ofSeconds(31)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("replicaAcks timeout must be positive and at most PT30S, was PT31S");
            assertThatThrownBy(() -> replicaAcks.accept(1, null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("replicaAcks timeout");
            replicaAcks.accept(2, Duration.ofSeconds(30));
        }
        assertThat(ReplicaAcks.of(1, Duration.ofNanos(1)).timeoutMillis())
                .as("WAIT 0 would block forever")
                .isEqualTo(1);
    }

    @Test
    void scriptDigestsAreTheSha1OfTheSource() {
        // SHA-1 of "return 1", as Redis's SCRIPT LOAD reports it.
        assertThat(RedisScript.of("t", "return 1").sha1()).isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
    }
}

package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.RecordStatus;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the Redis store writes on a real standalone server: layout, TTLs, errors. */
class RedisIdempotencyStoreRedisIT {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofHours(1);
    private static final Fingerprint FP = Fingerprint.ofString("amount=10");

    private static RedisClient client;
    private static RedisClient dead;
    private static StatefulRedisConnection<String, byte[]> raw;
    private static RedisIdempotencyStore store;

    private String scope;

    @BeforeAll
    static void connect() {
        client = RedisFixtures.standaloneClient();
        dead = RedisFixtures.deadStandaloneClient();
        raw = client.connect(RedisConnector.CODEC);
        store = RedisIdempotencyStore.create(client);
    }

    @AfterAll
    static void shutdown() {
        store.close();
        raw.close();
        client.shutdown();
        dead.shutdown();
    }

    @BeforeEach
    void newScope() {
        scope = "rt-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, k);
    }

    private static RedisCommands<String, byte[]> redis() {
        return raw.sync();
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void claimWritesOneStringUnderTheHashTaggedKeyWithTheLeaseAsTtl() {
        assertThat(store.claim(key("order-1"), FP, "owner-a", LEASE)).isEqualTo(Claim.FRESH);

        String name = "dupguard:idem:{" + scope + ":order-1}";
        assertThat(store.redisKey(key("order-1"))).isEqualTo(name);
        assertThat(text(redis().get(name))).isEqualTo("P" + FP.hex() + "\nowner-a\n");
        assertThat(redis().pttl(name)).isBetween(LEASE.toMillis() - 5_000, LEASE.toMillis());
    }

    @Test
    void completeStoresThePayloadAndSwitchesTheTtlToTheRetention() {
        store.claim(key("order-2"), FP, "owner-a", LEASE);
        store.complete(key("order-2"), "owner-a", RecordStatus.COMPLETED, new byte[] {0, 1, (byte) 0xff}, RETENTION);

        String name = store.redisKey(key("order-2"));
        byte[] head = ("C" + FP.hex() + "\nowner-a\n+").getBytes(StandardCharsets.UTF_8);
        assertThat(redis().get(name)).startsWith(head).endsWith(0, 1, 0xff).hasSize(head.length + 3);
        assertThat(redis().pttl(name)).isGreaterThan(LEASE.toMillis()).isLessThanOrEqualTo(RETENTION.toMillis());
        IdempotencyRecord record = store.find(key("order-2")).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.fingerprint()).isEqualTo(FP);
        assertThat(record.owner()).isNull();
        assertThat(record.payload()).containsExactly(0, 1, 0xff);
    }

    @Test
    void finalFailureIsStoredAsF() {
        store.claim(key("declined"), Fingerprint.none(), "owner-a", LEASE);
        store.complete(
                key("declined"), "owner-a", RecordStatus.FAILED, "boom".getBytes(StandardCharsets.UTF_8), RETENTION);

        assertThat(text(redis().get(store.redisKey(key("declined"))))).isEqualTo("F\nowner-a\n+boom");
        assertThat(store.claim(key("declined"), Fingerprint.none(), "owner-b", LEASE))
                .isInstanceOfSatisfying(Claim.Existing.class, e -> {
                    assertThat(e.record().status()).isEqualTo(RecordStatus.FAILED);
                    assertThat(e.record().fingerprint().isNone()).isTrue();
                    assertThat(text(e.record().payload())).isEqualTo("boom");
                });
    }

    @Test
    void renewResetsTheTtlAndReleaseDeletesTheHash() {
        store.claim(key("long"), FP, "owner-a", Duration.ofSeconds(2));
        String name = store.redisKey(key("long"));

        assertThat(store.renew(key("long"), "owner-a", LEASE)).isTrue();
        assertThat(redis().pttl(name)).isGreaterThan(Duration.ofSeconds(2).toMillis());

        store.release(key("long"), "owner-a");
        assertThat(redis().exists(name)).isZero();
        assertThat(store.renew(key("long"), "owner-a", LEASE)).isFalse();
    }

    @Test
    void nullAndEmptyPayloadsStayDistinct() {
        store.claim(key("null"), FP, "o", LEASE);
        store.complete(key("null"), "o", RecordStatus.COMPLETED, null, RETENTION);
        store.claim(key("empty"), FP, "o", LEASE);
        store.complete(key("empty"), "o", RecordStatus.COMPLETED, new byte[0], RETENTION);

        assertThat(store.find(key("null")).orElseThrow().payload()).isNull();
        assertThat(store.find(key("empty")).orElseThrow().payload()).isEmpty();
    }

    @Test
    void aReSentClaimOrCompleteOfTheSameOwnerIsHarmless() {
        // What Lettuce's at-least-once redelivery after a reconnect would do.
        assertThat(store.claim(key("twice"), FP, "owner-a", LEASE)).isEqualTo(Claim.FRESH);
        assertThat(store.claim(key("twice"), FP, "owner-a", LEASE)).isInstanceOf(Claim.Claimed.class);
        assertThat(store.claim(key("twice"), FP, "owner-b", LEASE)).isInstanceOf(Claim.Existing.class);

        store.complete(key("twice"), "owner-a", RecordStatus.COMPLETED, new byte[] {7}, RETENTION);
        store.complete(key("twice"), "owner-a", RecordStatus.COMPLETED, new byte[] {7}, RETENTION);
        assertThatThrownBy(() ->
                        store.complete(key("twice"), "owner-b", RecordStatus.COMPLETED, new byte[] {8}, RETENTION))
                .isInstanceOf(LeaseLostException.class)
                .hasMessage("claim on " + key("twice") + " ran out and was taken over by another caller");
        assertThat(store.find(key("twice")).orElseThrow().payload()).containsExactly(7);
    }

    @Test
    void anExpiredClaimIsGoneSoTheNextClaimIsFresh() {
        store.claim(key("crashed"), FP, "owner-a", Duration.ofMillis(50));
        Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> redis().exists(store.redisKey(key("crashed"))) == 0);

        assertThat(store.claim(key("crashed"), FP, "owner-b", LEASE)).isEqualTo(Claim.FRESH);
    }

    @Test
    void customPrefixIsUsedForEveryKey() {
        try (RedisIdempotencyStore custom =
                RedisIdempotencyStore.builder(client).keyPrefix("myapp:idem:").build()) {
            custom.claim(key("p"), FP, "o", LEASE);

            assertThat(custom.keyPrefix()).isEqualTo("myapp:idem:");
            assertThat(redis().exists("myapp:idem:{" + scope + ":p}")).isOne();
            assertThat(redis().exists("dupguard:idem:{" + scope + ":p}")).isZero();
            assertThat(store.find(key("p"))).isEmpty();
        }
    }

    @Test
    void longestDurationIsStoredAndLongerOnesAreRefusedNamingTheLimit() {
        store.claim(key("forever"), FP, "o", IdempotencyConfig.MAX_DURATION);
        assertThat(redis().pttl(store.redisKey(key("forever"))))
                .isGreaterThan(Duration.ofDays(36_000).toMillis());
        store.release(key("forever"), "o");
        assertThatThrownBy(() -> store.claim(key("too-long"), FP, "o", Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease")
                .hasMessageContaining("100 years");
        assertThat(store.find(key("too-long"))).isEmpty();
    }

    @Test
    void badArgumentsAreRejectedBeforeAnyCall() {
        assertThatThrownBy(() -> store.claim(key("x"), FP, "o", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
        assertThatThrownBy(() -> store.renew(key("x"), "o", Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
        assertThatThrownBy(() -> store.complete(key("x"), "o", RecordStatus.COMPLETED, new byte[0], Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retention");
        assertThatThrownBy(() -> store.complete(key("x"), "o", RecordStatus.IN_PROGRESS, new byte[0], RETENTION))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(redis().exists(store.redisKey(key("x")))).isZero();
    }

    @Test
    void anUnreadableRecordIsReportedNeverTakenForAbsent() {
        redis().set(store.redisKey(key("alien")), "X\no\n".getBytes(StandardCharsets.UTF_8));
        redis().set(store.redisKey(key("short")), new byte[] {'C', 1});
        redis().set(store.redisKey(key("no-marker")), "C\no\n".getBytes(StandardCharsets.UTF_8));
        redis().hset(store.redisKey(key("hash")), "st", "P".getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> store.find(key("alien")))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("unknown state 'X'");
        assertThatThrownBy(() -> store.claim(key("alien"), FP, "o", LEASE))
                .isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> store.claim(key("short"), FP, "o", LEASE))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("unreadable record");
        assertThatThrownBy(() -> store.find(key("no-marker")))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("payload marker");
        assertThatThrownBy(() -> store.claim(key("hash"), FP, "o", LEASE))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("WRONGTYPE");
        assertThatThrownBy(() -> store.complete(key("alien"), "o", RecordStatus.COMPLETED, new byte[0], RETENTION))
                .isInstanceOf(LeaseLostException.class);
        assertThat(text(redis().get(store.redisKey(key("alien"))))).isEqualTo("X\no\n"); // left alone
        redis().del(
                        store.redisKey(key("alien")),
                        store.redisKey(key("short")),
                        store.redisKey(key("no-marker")),
                        store.redisKey(key("hash")));
    }

    /** Servers before Redis 7.0 refuse SET … NX GET; the script claim behaves the same. */
    @Test
    void theScriptClaimForOlderServersBehavesLikeTheNativeOne() {
        try (RedisIdempotencyStore old =
                RedisIdempotencyStore.builder(client).scriptClaim().build()) {
            assertThat(old.claim(key("s"), FP, "owner-a", LEASE)).isEqualTo(Claim.FRESH);
            assertThat(old.claim(key("s"), FP, "owner-a", LEASE)).isEqualTo(Claim.FRESH); // re-sent
            assertThat(old.claim(key("s"), FP, "owner-b", LEASE))
                    .isInstanceOfSatisfying(
                            Claim.Existing.class,
                            e -> assertThat(e.record().owner()).isEqualTo("owner-a"));
            assertThat(redis().pttl(old.redisKey(key("s")))).isBetween(LEASE.toMillis() - 5_000, LEASE.toMillis());
            old.complete(key("s"), "owner-a", RecordStatus.COMPLETED, new byte[] {9}, RETENTION);
            assertThat(old.claim(key("s"), FP, "owner-c", LEASE))
                    .isInstanceOfSatisfying(
                            Claim.Existing.class,
                            e -> assertThat(e.record().payload()).containsExactly(9));
        }
    }

    /** A batch on an older server's script claim, pipelined. */
    @Test
    void aBatchOnTheScriptClaimBehavesLikeTheNativeOne() {
        try (RedisIdempotencyStore old =
                RedisIdempotencyStore.builder(client).scriptClaim().build()) {
            old.claim(key("b-taken"), FP, "owner-a", LEASE);
            List<Claim> claims = old.claimAll(
                    List.of(new BatchEntry(key("b-new"), FP), new BatchEntry(key("b-taken"), FP)), "owner-b", LEASE);
            assertThat(claims.get(0)).isEqualTo(Claim.FRESH);
            assertThat(claims.get(1)).isInstanceOfSatisfying(Claim.Existing.class, e -> assertThat(
                            e.record().owner())
                    .isEqualTo("owner-a"));
            assertThat(old.completeAll(
                            List.of(
                                    new BatchCompletion(key("b-new"), FP, RecordStatus.COMPLETED, new byte[] {7}),
                                    new BatchCompletion(key("b-taken"), FP, RecordStatus.COMPLETED, new byte[] {8})),
                            "owner-b",
                            RETENTION))
                    .containsExactly(key("b-taken"));
            assertThat(old.find(key("b-new")))
                    .hasValueSatisfying(r -> assertThat(r.payload()).containsExactly(7));
        }
    }

    @Test
    void anOwnerWithAControlCharacterIsRefusedBeforeAnyCall() {
        assertThatThrownBy(() -> store.claim(key("nl"), FP, "own\ner", LEASE))
                .isInstanceOf(io.dupguard.InvalidIdentifierException.class)
                .hasMessageContaining("owner");
        assertThat(redis().exists(store.redisKey(key("nl")))).isZero();
    }

    @Test
    void aStoreOnADeadAddressIsBuiltAndEveryCallFailsFast() {
        long start = System.nanoTime();
        try (RedisIdempotencyStore down = RedisIdempotencyStore.create(dead)) {
            assertThatThrownBy(() -> down.claim(key("k"), FP, "o", LEASE))
                    .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.store())
                            .isEqualTo("redis"))
                    .hasMessageContaining("cannot connect");
            assertThatThrownBy(() -> down.find(key("k"))).isInstanceOf(StoreUnavailableException.class);
            assertThatThrownBy(() -> down.renew(key("k"), "o", LEASE)).isInstanceOf(StoreUnavailableException.class);
            assertThatThrownBy(() -> down.release(key("k"), "o")).isInstanceOf(StoreUnavailableException.class);
            assertThatThrownBy(() -> down.complete(key("k"), "o", RecordStatus.COMPLETED, new byte[0], RETENTION))
                    .isInstanceOf(StoreUnavailableException.class);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void aClosedStoreRefusesCallsAndLeavesTheClientOpen() {
        RedisIdempotencyStore closing = RedisIdempotencyStore.create(client);
        closing.claim(key("c"), FP, "o", LEASE);
        closing.close();
        closing.close();

        assertThatThrownBy(() -> closing.find(key("c")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(store.find(key("c"))).isPresent();
    }
}

package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.test.ExpectedWarnings;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A private redis-server that the tests flush and kill: scripts come back after SCRIPT FLUSH, a
 * dead server raises {@link StoreUnavailableException} (never "absent"), and the store recovers
 * once the server is back.
 */
@ExpectedWarnings("Lettuce logs every failed reconnect while the test keeps Redis paused or stopped")
class RedisOutageIT {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private ThrowawayRedis server;
    private ClientResources resources;
    private RedisClient client;
    private RedisIdempotencyStore store;

    @BeforeEach
    void start() throws Exception {
        server = new ThrowawayRedis();
        // Reconnect quickly once the server is back, instead of Lettuce's back-off up to 30 s.
        resources = ClientResources.builder()
                .reconnectDelay(Delay.constant(Duration.ofMillis(100)))
                .build();
        client = RedisClient.create(resources, RedisFixtures.uri(server.url()));
        store = RedisIdempotencyStore.create(client);
    }

    @AfterEach
    void stop() throws Exception {
        store.close();
        client.shutdown();
        resources.shutdown().get();
        server.close();
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("outage", k);
    }

    @Test
    void scriptsAreReloadedWhenTheServerForgotThem() {
        store.claim(key("a"), Fingerprint.none(), "o", LEASE);
        store.complete(key("a"), "o", RecordStatus.COMPLETED, new byte[] {1}, LEASE);
        try (StatefulRedisConnection<String, String> admin = client.connect()) {
            admin.sync().scriptFlush();
            assertThat(admin.sync().scriptExists(IdempotencyScripts.COMPLETE.sha1()))
                    .containsExactly(false);

            assertThat(store.claim(key("b"), Fingerprint.none(), "o", LEASE)).isEqualTo(Claim.FRESH);
            store.complete(key("b"), "o", RecordStatus.COMPLETED, new byte[] {1}, LEASE);

            assertThat(admin.sync().scriptExists(IdempotencyScripts.COMPLETE.sha1()))
                    .containsExactly(true);
        }
        assertThat(store.find(key("b"))).isPresent();
    }

    /** The claim script of servers before Redis 7.0 is reloaded the same way. */
    @Test
    void theFallbackClaimScriptIsReloadedToo() {
        RedisIdempotencyStore old =
                RedisIdempotencyStore.builder(client).scriptClaim().build();
        try (StatefulRedisConnection<String, String> admin = client.connect()) {
            old.claim(key("c"), Fingerprint.none(), "o", LEASE);
            admin.sync().scriptFlush();

            assertThat(old.claim(key("d"), Fingerprint.none(), "o", LEASE)).isEqualTo(Claim.FRESH);

            assertThat(admin.sync().scriptExists(IdempotencyScripts.CLAIM.sha1()))
                    .containsExactly(true);
        } finally {
            old.close();
        }
    }

    @Test
    void aServerThatDiesRaisesStoreUnavailableAndTheStoreRecoversWhenItIsBack() throws Exception {
        Idempotency idempotency = Idempotency.of(store);
        AtomicInteger effects = new AtomicInteger();
        idempotency.execute(key("before"), Fingerprint.none(), Integer.class, effects::incrementAndGet);

        server.kill();

        assertThatThrownBy(() -> store.find(key("before"))).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() ->
                        idempotency.execute(key("during"), Fingerprint.none(), Integer.class, effects::incrementAndGet))
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(effects).hasValue(1);

        server.start();

        // The server came back empty (no persistence); the store answers again on its own.
        await().atMost(Duration.ofSeconds(15))
                .ignoreException(StoreUnavailableException.class)
                .until(() -> store.find(key("before")).isEmpty());
        assertThat(idempotency
                        .execute(key("during"), Fingerprint.none(), Integer.class, effects::incrementAndGet)
                        .value())
                .isEqualTo(2);
    }
}

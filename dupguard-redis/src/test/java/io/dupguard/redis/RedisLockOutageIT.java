package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.StoreUnavailableException;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.test.ExpectedWarnings;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A private redis-server that the tests flush and kill: an outage is {@link
 * StoreUnavailableException}, never "free" or "taken", and the provider recovers on its own.
 */
@ExpectedWarnings("Lettuce logs failed reconnects, dupguard a release that timed out, while Redis is stopped")
class RedisLockOutageIT {
    private ThrowawayRedis server;
    private ClientResources resources;
    private RedisClient client;
    private RedisLockProvider locks;

    @BeforeEach
    void start() throws Exception {
        server = new ThrowawayRedis();
        // Reconnect quickly once the server is back, instead of Lettuce's back-off up to 30 s.
        resources = ClientResources.builder()
                .reconnectDelay(Delay.constant(Duration.ofMillis(100)))
                .build();
        client = RedisClient.create(resources, RedisFixtures.uri(server.url()));
        locks = RedisLockProvider.create(client);
    }

    @AfterEach
    void stop() throws Exception {
        locks.close();
        client.shutdown();
        resources.shutdown().get();
        server.close();
    }

    @Test
    void scriptsAreReloadedWhenTheServerForgotThem() {
        locks.tryAcquire("a").orElseThrow().close();
        try (StatefulRedisConnection<String, String> admin = client.connect()) {
            admin.sync().scriptFlush();

            try (Lease lease = locks.tryAcquire("a").orElseThrow()) {
                assertThat(lease.extend(Duration.ofSeconds(5))).isTrue();
            }
            assertThat(admin.sync().scriptExists(LockScripts.LOCK.sha1(), LockScripts.UNLOCK.sha1()))
                    .containsExactly(true, true);
            assertThat(admin.sync().exists(locks.lockKey("a"))).isZero();
        }
    }

    @Test
    void aServerThatDiesRaisesStoreUnavailableAndTheProviderRecoversWhenItIsBack() throws Exception {
        Lease held = locks.tryAcquire("account-7").orElseThrow();

        server.kill();

        assertThatThrownBy(held::isHeld).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> held.extend(Duration.ofSeconds(5))).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> locks.tryAcquire("order-1")).isInstanceOf(StoreUnavailableException.class);
        LockOptions waiting =
                LockOptions.custom().waitTime(Duration.ofSeconds(2)).build();
        assertThatThrownBy(() -> locks.acquire("order-1", waiting)).isInstanceOf(StoreUnavailableException.class);
        held.close(); // logs that the lock will expire; never throws from a finally block

        server.start();

        // The server came back empty (no persistence); the provider answers again on its own.
        await().atMost(Duration.ofSeconds(15))
                .ignoreException(StoreUnavailableException.class)
                .until(() -> locks.tryAcquire("order-1")
                        .map(l -> {
                            l.close();
                            return true;
                        })
                        .orElse(false));
        try (Lease again = locks.tryAcquire("account-7").orElseThrow()) {
            assertThat(again.isHeld()).isTrue();
        }
    }

    @Test
    void aServerThatWasNeverReachableRaisesStoreUnavailable() {
        RedisClient dead = RedisFixtures.deadStandaloneClient();
        try (RedisLockProvider unreachable = RedisLockProvider.create(dead)) {
            assertThatThrownBy(() -> unreachable.tryAcquire("x"))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("redis");
            LockOptions waiting =
                    LockOptions.custom().waitTime(Duration.ofSeconds(2)).build();
            assertThatThrownBy(() -> unreachable.acquire("x", waiting)).isInstanceOf(StoreUnavailableException.class);
        } finally {
            dead.shutdown();
        }
    }
}

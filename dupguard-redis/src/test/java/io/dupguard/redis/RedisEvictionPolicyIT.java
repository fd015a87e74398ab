package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.lettuce.core.RedisClient;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A Redis that may evict keys silently re-runs completed work (every dupguard key has a TTL, so
 * even volatile-* policies evict them): the stores check the policy on connecting and refuse by
 * default. Each case runs its own redis-server.
 */
class RedisEvictionPolicyIT {

    @Test
    void anEvictingServerIsRefusedNamingTheSettingAndTheWorkNeverRuns() throws Exception {
        try (ThrowawayRedis server = new ThrowawayRedis(evicting());
                Clients c = new Clients(server)) {
            AtomicInteger effects = new AtomicInteger();
            Idempotency idem = Idempotency.of(RedisIdempotencyStore.create(c.client));

            assertThatThrownBy(() -> idem.execute(
                            IdempotencyKey.of("payments", "p-1"),
                            Fingerprint.none(),
                            Integer.class,
                            effects::incrementAndGet))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("maxmemory-policy=volatile-lru")
                    .hasMessageContaining("noeviction")
                    .hasMessageContaining("evictionPolicyCheck");
            assertThat(effects).hasValue(0);
            assertThatThrownBy(() -> RedisLockProvider.create(c.client).tryAcquire("order-1", LockOptions.ofDefaults()))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("volatile-lru");
        }
    }

    @Test
    void warnAcceptsTheRiskAndWorks() throws Exception {
        try (ThrowawayRedis server = new ThrowawayRedis(evicting());
                Clients c = new Clients(server)) {
            RedisIdempotencyStore store = RedisIdempotencyStore.builder(c.client)
                    .evictionPolicyCheck(EvictionPolicyCheck.WARN)
                    .build();
            Idempotency idem = Idempotency.of(store);

            assertThat(idem.execute(IdempotencyKey.of("payments", "p-2"), Fingerprint.none(), Integer.class, () -> 7)
                            .value())
                    .isEqualTo(7);
            try (Lease lease = RedisLockProvider.builder(c.client)
                    .evictionPolicyCheck(EvictionPolicyCheck.OFF)
                    .build()
                    .tryAcquire("order-2", LockOptions.ofDefaults())
                    .orElseThrow()) {
                assertThat(lease.isHeld()).isTrue();
            }
        }
    }

    @Test
    void evictionWithoutAMemoryLimitNeverHappensAndIsAccepted() throws Exception {
        try (ThrowawayRedis server = new ThrowawayRedis(List.of("--maxmemory-policy", "allkeys-lru"));
                Clients c = new Clients(server)) {
            Idempotency idem = Idempotency.of(RedisIdempotencyStore.create(c.client));

            assertThat(idem.execute(IdempotencyKey.of("payments", "p-3"), Fingerprint.none(), Integer.class, () -> 3)
                            .value())
                    .isEqualTo(3);
        }
    }

    @Test
    void aServerThatForbidsConfigIsUsedWithAWarning() throws Exception {
        // Managed services rename or disable CONFIG; the check cannot run and must not block.
        try (ThrowawayRedis server = new ThrowawayRedis(List.of("--rename-command", "CONFIG", ""));
                Clients c = new Clients(server)) {
            Idempotency idem = Idempotency.of(RedisIdempotencyStore.create(c.client));

            assertThat(idem.execute(IdempotencyKey.of("payments", "p-4"), Fingerprint.none(), Integer.class, () -> 4)
                            .value())
                    .isEqualTo(4);
        }
    }

    private static List<String> evicting() {
        return List.of("--maxmemory", "100mb", "--maxmemory-policy", "volatile-lru");
    }

    /** One client on a throwaway server, shut down with it. */
    private static final class Clients implements AutoCloseable {
        final RedisClient client;

        Clients(ThrowawayRedis server) {
            client = RedisClient.create(RedisFixtures.uri(server.url()));
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }
}

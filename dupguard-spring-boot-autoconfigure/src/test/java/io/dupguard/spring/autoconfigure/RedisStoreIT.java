package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.Outcome;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockProvider;
import io.dupguard.redis.RedisIdempotencyStore;
import io.dupguard.redis.RedisLockProvider;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The redis store built from Boot's spring.data.redis.* settings: standalone and Cluster. */
class RedisStoreIT {
    private final String prefix = "it-starter-" + UUID.randomUUID() + ":";

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataRedisAutoConfiguration.class, DupguardAutoConfiguration.class))
                .withPropertyValues(
                        "dupguard.redis.idempotency-key-prefix=" + prefix + "idem:",
                        "dupguard.redis.lock-key-prefix=" + prefix + "lock:");
    }

    record Quote(String id, List<Integer> legs) {}

    private void exercise(org.springframework.context.ApplicationContext ctx) {
        assertThat(ctx.getBean(IdempotencyStore.class)).isInstanceOf(RedisIdempotencyStore.class);
        assertThat(ctx.getBean(LockProvider.class)).isInstanceOf(RedisLockProvider.class);
        Idempotency idem = ctx.getBean(Idempotency.class);
        IdempotencyKey key = IdempotencyKey.of("quotes", UUID.randomUUID().toString());
        Quote q = new Quote("q", List.of(1, 2));
        Outcome<Quote> first = idem.execute(key, Fingerprint.ofFields(Map.of("a", 1)), Quote.class, () -> q);
        Outcome<Quote> replay = idem.execute(key, Fingerprint.ofFields(Map.of("a", 1)), Quote.class, () -> null);
        assertThat(first.isReplay()).isFalse();
        assertThat(replay.isReplay()).isTrue();
        assertThat(replay.value()).isEqualTo(q);
        try (Lease lease =
                ctx.getBean(LockProvider.class).acquire(prefix + "l", io.dupguard.lock.LockOptions.ofDefaults())) {
            assertThat(lease.fencingToken()).isPositive();
        }
        SubmissionTokens tokens = ctx.getBean(SubmissionTokens.class);
        String token = tokens.issue("it", "u1", Duration.ofMinutes(1));
        assertThat(tokens.consume("it", "u1", token)).isTrue();
        assertThat(tokens.consume("it", "u1", token)).isFalse();
        String subject = UUID.randomUUID().toString();
        SubmitThrottle throttle = ctx.getBean(SubmitThrottle.class);
        assertThat(throttle.tryAcquire("it", subject, Duration.ofMinutes(1))).isTrue();
        assertThat(throttle.tryAcquire("it", subject, Duration.ofMinutes(1))).isFalse();
    }

    @Test
    void standaloneFromSpringDataRedisProperties() {
        String url = System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379");
        runner().withPropertyValues("spring.data.redis.url=" + url).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(DupguardRedisConnection.class).isCluster()).isFalse();
            exercise(ctx);
        });
    }

    @Test
    void clusterFromSpringDataRedisClusterNodes() {
        String nodes = System.getProperty(
                        "dupguard.redis.cluster",
                        "redis://127.0.0.1:7000,redis://127.0.0.1:7001,redis://127.0.0.1:7002")
                .replace("redis://", "");
        runner().withPropertyValues("spring.data.redis.cluster.nodes=" + nodes).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(DupguardRedisConnection.class).isCluster()).isTrue();
            exercise(ctx);
        });
    }

    @Test
    void replicaAcksReachEveryStoreAndAServerWithoutReplicasRefusesTheWrites() {
        // 6379 has no replicas: a claim, a lock and a token asking one acknowledgement are withdrawn
        String url = System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379");
        runner().withPropertyValues(
                        "spring.data.redis.url=" + url,
                        "dupguard.redis.replica-acks=1",
                        "dupguard.redis.replica-acks-timeout=50ms")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    IdempotencyKey key =
                            IdempotencyKey.of("quotes", UUID.randomUUID().toString());
                    java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
                    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ctx.getBean(Idempotency.class)
                                    .execute(
                                            key,
                                            Fingerprint.none(),
                                            String.class,
                                            () -> "ran " + ran.incrementAndGet()))
                            .isInstanceOf(io.dupguard.StoreUnavailableException.class)
                            .hasMessageContaining("replica");
                    assertThat(ran).hasValue(0);
                    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ctx.getBean(LockProvider.class)
                                    .acquire(prefix + "acked", io.dupguard.lock.LockOptions.ofDefaults()))
                            .isInstanceOf(io.dupguard.StoreUnavailableException.class);
                    org.assertj.core.api.Assertions.assertThatThrownBy(
                                    () -> ctx.getBean(SubmissionTokens.class).issue("it", "u1", Duration.ofMinutes(1)))
                            .isInstanceOf(io.dupguard.StoreUnavailableException.class);
                });
        runner().withPropertyValues("spring.data.redis.url=" + url, "dupguard.redis.replica-acks=-1")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining("dupguard.redis.replica-acks");
                });
    }
}

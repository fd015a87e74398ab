package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The redis store built from Boot's Sentinel settings (spring.data.redis.sentinel.*) against a real
 * Sentinel: the test starts a throwaway master and a redis-server in Sentinel mode watching it, and
 * every store's keys land on the master the Sentinel names.
 */
class RedisSentinelIT {
    @TempDir
    Path dir;

    @Test
    void everyStoreWorksThroughTheSentinelAndWritesToItsMaster() throws Exception {
        String master = "it-master";
        String prefix = "it-sentinel-" + UUID.randomUUID() + ":";
        try (RedisProcess data = RedisProcess.server(dir, List.of())) {
            int sentinelPort = RedisProcess.freePort();
            Path conf = dir.resolve("sentinel.conf");
            Files.writeString(
                    conf,
                    String.join(
                            "\n",
                            "port " + sentinelPort,
                            "bind 127.0.0.1",
                            "sentinel monitor " + master + " 127.0.0.1 " + data.port + " 1",
                            "sentinel down-after-milliseconds " + master + " 60000",
                            ""));
            try (RedisProcess sentinel = RedisProcess.start(
                    dir, sentinelPort, "+monitor master " + master, List.of(conf.toString(), "--sentinel"))) {
                new ApplicationContextRunner()
                        .withConfiguration(AutoConfigurations.of(
                                DataRedisAutoConfiguration.class, DupguardAutoConfiguration.class))
                        .withPropertyValues(
                                "spring.data.redis.sentinel.master=" + master,
                                "spring.data.redis.sentinel.nodes=127.0.0.1:" + sentinel.port,
                                "dupguard.redis.idempotency-key-prefix=" + prefix + "idem:",
                                "dupguard.redis.lock-key-prefix=" + prefix + "lock:")
                        .run(ctx -> {
                            assertThat(ctx).hasNotFailed();
                            assertThat(ctx.getBean(DupguardRedisConnection.class)
                                            .uri()
                                            .getSentinels())
                                    .hasSize(1);

                            Idempotency idem = ctx.getBean(Idempotency.class);
                            IdempotencyKey key = IdempotencyKey.of("orders", "o-1");
                            assertThat(idem.execute(key, Fingerprint.none(), String.class, () -> "charged")
                                            .isReplay())
                                    .isFalse();
                            assertThat(idem.execute(key, Fingerprint.none(), String.class, () -> "again")
                                            .value())
                                    .isEqualTo("charged");
                            try (Lease lease = ctx.getBean(LockProvider.class).acquire("l", LockOptions.ofDefaults())) {
                                assertThat(lease.fencingToken()).isPositive();
                            }
                            SubmissionTokens tokens = ctx.getBean(SubmissionTokens.class);
                            String token = tokens.issue("it", "u1", Duration.ofMinutes(1));
                            assertThat(tokens.consume("it", "u1", token)).isTrue();
                            assertThat(tokens.consume("it", "u1", token)).isFalse();
                            SubmitThrottle throttle = ctx.getBean(SubmitThrottle.class);
                            assertThat(throttle.tryAcquire("it", "u1", Duration.ofMinutes(1)))
                                    .isTrue();
                            assertThat(throttle.tryAcquire("it", "u1", Duration.ofMinutes(1)))
                                    .isFalse();

                            // the writes went to the master the Sentinel named (the only data server here)
                            RedisClient direct = RedisClient.create("redis://127.0.0.1:" + data.port);
                            try (StatefulRedisConnection<String, String> c = direct.connect()) {
                                assertThat(c.sync().keys(prefix + "idem:*")).isNotEmpty();
                                assertThat(c.sync().dbsize()).isGreaterThanOrEqualTo(2); // + the throttle window
                            } finally {
                                direct.shutdown();
                            }
                        });
            }
        }
    }
}

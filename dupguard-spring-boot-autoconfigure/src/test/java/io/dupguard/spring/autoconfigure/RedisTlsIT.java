package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.token.SubmissionTokens;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * TLS to Redis with the trust of a Boot SSL bundle (spring.data.redis.ssl.bundle): the test makes a
 * self-signed certificate with openssl and starts a redis-server that speaks only TLS with it. With
 * the bundle trusting that certificate every store works; with the JVM's default trust the
 * handshake is refused — the bundle, not a trust-all shortcut, is what lets the client in.
 */
class RedisTlsIT {
    @TempDir
    static Path dir;

    static RedisProcess redis;

    @BeforeAll
    static void tlsRedis() throws Exception {
        Process openssl = new ProcessBuilder(
                        "/usr/bin/openssl",
                        "req",
                        "-x509",
                        "-newkey",
                        "rsa:2048",
                        "-nodes",
                        "-days",
                        "1",
                        "-subj",
                        "/CN=localhost",
                        "-addext",
                        "subjectAltName=DNS:localhost,IP:127.0.0.1",
                        "-keyout",
                        dir.resolve("key.pem").toString(),
                        "-out",
                        dir.resolve("cert.pem").toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.out").toFile())
                .start();
        assertThat(openssl.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(openssl.exitValue())
                .as("openssl req (see %s)", dir.resolve("openssl.out"))
                .isZero();
        int port = RedisProcess.freePort();
        redis = RedisProcess.start(
                dir,
                port,
                "Ready to accept connections",
                List.of(
                        "--port", "0",
                        "--tls-port", String.valueOf(port),
                        "--tls-cert-file", dir.resolve("cert.pem").toString(),
                        "--tls-key-file", dir.resolve("key.pem").toString(),
                        "--tls-ca-cert-file", dir.resolve("cert.pem").toString(),
                        "--tls-auth-clients", "no",
                        "--bind", "127.0.0.1",
                        "--save", "",
                        "--appendonly", "no"));
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    private ApplicationContextRunner runner(String... extra) {
        String prefix = "it-tls-" + UUID.randomUUID() + ":";
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SslAutoConfiguration.class, DataRedisAutoConfiguration.class, DupguardAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=localhost",
                        "spring.data.redis.port=" + redis.port,
                        "spring.data.redis.ssl.enabled=true",
                        "spring.data.redis.timeout=5s",
                        "dupguard.redis.idempotency-key-prefix=" + prefix + "idem:",
                        "dupguard.redis.lock-key-prefix=" + prefix + "lock:")
                .withPropertyValues(extra);
    }

    @Test
    void theSslBundlesTrustLetsEveryStoreIn() {
        runner(
                        "spring.ssl.bundle.pem.it-redis.truststore.certificate=file:" + dir.resolve("cert.pem"),
                        "spring.data.redis.ssl.bundle=it-redis")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(DupguardRedisConnection.class).uri().isSsl())
                            .isTrue();
                    Idempotency idem = ctx.getBean(Idempotency.class);
                    IdempotencyKey key = IdempotencyKey.of("orders", "tls-1");
                    assertThat(idem.execute(key, Fingerprint.none(), String.class, () -> "charged")
                                    .isReplay())
                            .isFalse();
                    assertThat(idem.execute(key, Fingerprint.none(), String.class, () -> "again")
                                    .value())
                            .isEqualTo("charged");
                    try (Lease lease = ctx.getBean(LockProvider.class).acquire("l", LockOptions.ofDefaults())) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                    SubmissionTokens tokens = ctx.getBean(SubmissionTokens.class); // the URI-bound client
                    String token = tokens.issue("it", "u1", Duration.ofMinutes(1));
                    assertThat(tokens.consume("it", "u1", token)).isTrue();
                });
    }

    @Test
    void withoutTheBundleTheSelfSignedCertificateIsRefused() {
        runner().run(ctx -> {
            Throwable failure = ctx.getStartupFailure();
            if (failure == null) {
                try {
                    ctx.getBean(Idempotency.class)
                            .execute(IdempotencyKey.of("orders", "tls-2"), Fingerprint.none(), String.class, () -> "x");
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            assertThat(failure).as("no TLS failure without the bundle's trust").isNotNull();
            Throwable cause = failure;
            while (cause != null && !(cause instanceof SSLHandshakeException)) {
                cause = cause.getCause();
            }
            assertThat(cause)
                    .as("an SSL handshake failure in the chain of %s", failure)
                    .isNotNull();
        });
    }
}

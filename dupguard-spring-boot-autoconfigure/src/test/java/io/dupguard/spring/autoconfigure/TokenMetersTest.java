package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.memory.InMemorySubmissionTokens;
import io.dupguard.spring.metrics.MeteredSubmitThrottle;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import io.dupguard.token.TokenClaim;
import io.dupguard.token.TokenRefusedException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** dupguard.tokens.* and dupguard.throttle.calls count what the starter's token and throttle beans answer. */
class TokenMetersTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DupguardAutoConfiguration.class))
            .withPropertyValues("dupguard.store=memory")
            .withUserConfiguration(Registry.class);

    @Configuration(proxyBeanMethods = false)
    static class Registry {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnTokens {
        static final SubmissionTokens TOKENS = new InMemorySubmissionTokens();

        @Bean
        SubmissionTokens myTokens() {
            return TOKENS;
        }
    }

    private static double count(MeterRegistry r, String name, String result) {
        return r.get(name).tag("result", result).counter().count();
    }

    @Test
    void tokensConsumedAndRejectedAndThrottleAllowedAndRefusedAreCounted() {
        runner.run(ctx -> {
            SubmissionTokens tokens = ctx.getBean(SubmissionTokens.class);
            SubmitThrottle throttle = ctx.getBean(SubmitThrottle.class);
            MeterRegistry meters = ctx.getBean(MeterRegistry.class);

            String token = tokens.issue("checkout", "u1", Duration.ofMinutes(5));
            assertThatThrownBy(() -> tokens.execute("checkout", "u1", token, () -> {
                        throw new IllegalStateException("payment declined"); // put back: counted nowhere
                    }))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(tokens.execute("checkout", "u1", token, () -> "order-1")).isEqualTo("order-1");
            assertThatThrownBy(() -> tokens.execute("checkout", "u1", token, () -> "order-2")) // a double submit
                    .isInstanceOf(TokenRefusedException.class);
            assertThat(tokens.consume("checkout", "u2", "not-a-token")).isFalse();
            assertThat(throttle.tryAcquire("orders", "u1", Duration.ofMinutes(1)))
                    .isTrue();
            assertThat(throttle.tryAcquire("orders", "u1", Duration.ofMinutes(1)))
                    .isFalse();

            assertThat(meters.get("dupguard.tokens.issued").counter().count()).isEqualTo(1.0);
            assertThat(count(meters, "dupguard.tokens.consumed", "consumed")).isEqualTo(1.0);
            assertThat(count(meters, "dupguard.tokens.consumed", "rejected")).isEqualTo(2.0);
            assertThat(count(meters, "dupguard.throttle.calls", "allowed")).isEqualTo(1.0);
            assertThat(count(meters, "dupguard.throttle.calls", "refused")).isEqualTo(1.0);
        });
    }

    @Test
    void aWaitingSubmitCountsOnceWhateverItsPollsSaw() {
        runner.run(ctx -> {
            SubmissionTokens tokens = ctx.getBean(SubmissionTokens.class);
            MeterRegistry meters = ctx.getBean(MeterRegistry.class);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                String token = tokens.issue("checkout", "u1", Duration.ofMinutes(5));
                TokenClaim first = tokens.claim("checkout", "u1", token).orElseThrow();
                Future<String> retry = pool.submit(() -> tokens.execute(
                        "checkout",
                        "u1",
                        token,
                        SubmissionTokens.DEFAULT_LEASE,
                        Duration.ofSeconds(20),
                        () -> "order-1"));
                await().during(Duration.ofMillis(300)) // polls while the first attempt holds the token
                        .atMost(Duration.ofSeconds(2))
                        .until(() -> !retry.isDone());
                first.release();
                assertThat(retry.get(30, TimeUnit.SECONDS)).isEqualTo("order-1");

                String held = tokens.issue("checkout", "u1", Duration.ofMinutes(5));
                TokenClaim holder = tokens.claim("checkout", "u1", held).orElseThrow();
                assertThatThrownBy(() -> tokens.execute(
                                "checkout",
                                "u1",
                                held,
                                SubmissionTokens.DEFAULT_LEASE,
                                Duration.ofMillis(300),
                                () -> "x"))
                        .isInstanceOf(TokenRefusedException.class);
                holder.release();

                assertThat(count(meters, "dupguard.tokens.consumed", "consumed"))
                        .isEqualTo(1.0);
                assertThat(count(meters, "dupguard.tokens.consumed", "rejected"))
                        .isEqualTo(1.0);
            } finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void theApplicationsOwnTokensBeanIsLeftAsItIs() {
        runner.withUserConfiguration(OwnTokens.class).run(ctx -> {
            assertThat(ctx.getBean(SubmissionTokens.class)).isSameAs(OwnTokens.TOKENS);
            assertThat(ctx.getBean(SubmitThrottle.class)).isInstanceOf(MeteredSubmitThrottle.class); // the starter's
        });
    }
}

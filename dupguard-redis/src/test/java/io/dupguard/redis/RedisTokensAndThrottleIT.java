package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.StoreUnavailableException;
import io.dupguard.test.AbstractSubmissionTokensContractTest;
import io.dupguard.test.AbstractSubmitThrottleContractTest;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Tokens and throttle on standalone Redis; two clients stand in for two machines. The Cluster runs
 * the same contracts in {@link RedisClusterTokensAndThrottleIT}: nested classes with the same test
 * methods in one class would be counted once in the XML report's {@code tests="N"} (surefire 3.5.6).
 * {@link RedisSentinelTokensAndThrottleIT} runs them through Sentinel discovery.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisTokensAndThrottleIT {
    private final RedisClient a = newClient();
    private final RedisClient b = newClient();
    private final RedisClient dead = RedisFixtures.deadStandaloneClient();

    /** A client on the server under test, one per machine. */
    RedisClient newClient() {
        return RedisFixtures.standaloneClient();
    }

    RedisSubmissionTokens newTokens(RedisClient client) {
        return RedisSubmissionTokens.create(client);
    }

    RedisSubmitThrottle newThrottle(RedisClient client) {
        return RedisSubmitThrottle.create(client);
    }

    @AfterAll
    void shutdown() {
        a.shutdown();
        b.shutdown();
        dead.shutdown();
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Tokens extends AbstractSubmissionTokensContractTest {
        private final RedisSubmissionTokens one = newTokens(a);
        private final RedisSubmissionTokens two = newTokens(b);

        @Override
        protected SubmissionTokens tokens() {
            return one;
        }

        @Override
        protected SubmissionTokens otherMachine() {
            return two;
        }

        @Override
        protected SubmissionTokens unreachableTokens() {
            return newTokens(dead);
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Throttle extends AbstractSubmitThrottleContractTest {
        private final RedisSubmitThrottle one = newThrottle(a);
        private final RedisSubmitThrottle two = newThrottle(b);

        @Override
        protected SubmitThrottle throttle() {
            return one;
        }

        @Override
        protected SubmitThrottle otherMachine() {
            return two;
        }
    }

    @Test
    void outageIsAnErrorNeverAllowed() {
        assertThatThrownBy(() -> RedisSubmitThrottle.create(dead).tryAcquire("s", "u", Duration.ofSeconds(5)))
                .isInstanceOf(StoreUnavailableException.class);
    }
}

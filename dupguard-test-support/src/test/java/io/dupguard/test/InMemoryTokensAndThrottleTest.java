package io.dupguard.test;

import io.dupguard.StoreUnavailableException;
import io.dupguard.memory.InMemoryPreparedSubmissions;
import io.dupguard.memory.InMemorySubmissionTokens;
import io.dupguard.memory.InMemorySubmitThrottle;
import io.dupguard.token.PreparedSubmissions;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import java.time.Duration;
import org.junit.jupiter.api.Nested;

class InMemoryTokensAndThrottleTest {

    @Nested
    class Tokens extends AbstractSubmissionTokensContractTest {
        private final InMemorySubmissionTokens tokens = new InMemorySubmissionTokens();

        @Override
        protected SubmissionTokens tokens() {
            return tokens;
        }

        @Override
        protected SubmissionTokens unreachableTokens() {
            return new SubmissionTokens() {
                private StoreUnavailableException down() {
                    return new StoreUnavailableException("memory", "simulated outage", null);
                }

                @Override
                public String issue(String scope, String subject, Duration ttl) {
                    throw down();
                }

                @Override
                public boolean consume(String scope, String subject, String token) {
                    throw down();
                }

                @Override
                public boolean tryLease(String scope, String subject, String token, String owner, Duration lease) {
                    throw down();
                }

                @Override
                public boolean leased(String scope, String token) {
                    throw down();
                }

                @Override
                public boolean renewLease(String scope, String token, String owner, Duration lease) {
                    throw down();
                }

                @Override
                public boolean completeLease(String scope, String token, String owner) {
                    throw down();
                }

                @Override
                public void releaseLease(String scope, String token, String owner) {
                    throw down();
                }
            };
        }
    }

    @Nested
    class Throttle extends AbstractSubmitThrottleContractTest {
        private final InMemorySubmitThrottle throttle = new InMemorySubmitThrottle();

        @Override
        protected SubmitThrottle throttle() {
            return throttle;
        }
    }

    @Nested
    class Prepared extends AbstractPreparedSubmissionsContractTest {
        private final InMemoryPreparedSubmissions prepared = new InMemoryPreparedSubmissions();

        @Override
        protected PreparedSubmissions submissions() {
            return prepared;
        }
    }
}

package io.dupguard.test;

import io.dupguard.memory.InMemoryPreparedSubmissions;
import io.dupguard.memory.InMemorySubmissionTokens;
import io.dupguard.memory.InMemorySubmitThrottle;
import io.dupguard.token.PreparedSubmissions;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import org.junit.jupiter.api.Nested;

class InMemoryTokensAndThrottleTest {

    @Nested
    class Tokens extends AbstractSubmissionTokensContractTest {
        private final InMemorySubmissionTokens tokens = new InMemorySubmissionTokens();

        @Override
        protected SubmissionTokens tokens() {
            return tokens;
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

package io.dupguard.redis;

import io.dupguard.test.AbstractSubmissionTokensContractTest;
import io.dupguard.test.AbstractSubmitThrottleContractTest;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** Tokens and throttle on the 3-master Redis Cluster (standalone Redis: {@link RedisTokensAndThrottleIT}). */
@Execution(ExecutionMode.CONCURRENT) // in the Cluster lane: see Lanes
@ResourceLock(Lanes.CLUSTER)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisClusterTokensAndThrottleIT {
    private final RedisClusterClient cluster = RedisFixtures.clusterClient();
    private final RedisClusterClient dead = RedisFixtures.deadClusterClient();

    @AfterAll
    void shutdown() {
        cluster.shutdown();
        dead.shutdown();
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class ClusterTokens extends AbstractSubmissionTokensContractTest {
        private final RedisSubmissionTokens one = RedisSubmissionTokens.create(cluster);

        @Override
        protected SubmissionTokens tokens() {
            return one;
        }

        @Override
        protected SubmissionTokens unreachableTokens() {
            return RedisSubmissionTokens.create(dead);
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class ClusterThrottle extends AbstractSubmitThrottleContractTest {
        private final RedisSubmitThrottle one = RedisSubmitThrottle.create(cluster);

        @Override
        protected SubmitThrottle throttle() {
            return one;
        }
    }
}

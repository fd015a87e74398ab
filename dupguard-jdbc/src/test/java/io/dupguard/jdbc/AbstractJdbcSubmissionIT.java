package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.jdbc.TestDatabases.MachinePools;
import io.dupguard.jdbc.TestDatabases.Servers;
import io.dupguard.test.AbstractPreparedSubmissionsContractTest;
import io.dupguard.test.AbstractSubmissionTokensContractTest;
import io.dupguard.test.AbstractSubmitThrottleContractTest;
import io.dupguard.token.PreparedSubmissions;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import io.dupguard.token.TokenRefusedException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Tokens, throttle and prepared submissions on one database; two pools stand in for two machines. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcSubmissionIT {
    private final DataSource machineA;
    private final DataSource machineB;
    /** A pool where no server answers (the driver does not matter: nothing is ever reached). */
    private final DataSource unreachable = TestDatabases.unreachable(Db.POSTGRESQL);
    /** How many nodes the machines' commits race on (prepared submissions' work runs once per node on Galera). */
    private final int machines;

    AbstractJdbcSubmissionIT(Db db) {
        this(Servers.one(db));
    }

    /** Machine A on {@code servers}' first server, machine B on its second. */
    AbstractJdbcSubmissionIT(Servers servers) {
        this(servers::pool, Math.min(servers.urls().size(), 2));
    }

    /** The contracts with each machine's connections from {@code pools} (a size in, a data source out). */
    AbstractJdbcSubmissionIT(IntFunction<DataSource> pools) {
        this((machine, size) -> pools.apply(size), 1);
    }

    private AbstractJdbcSubmissionIT(MachinePools pools, int machines) {
        machineA = pools.pool(0, 16);
        machineB = pools.pool(1, 16);
        this.machines = machines;
    }

    @AfterAll
    void closePools() {
        TestDatabases.close(machineA);
        TestDatabases.close(machineB);
        TestDatabases.close(unreachable);
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Tokens extends AbstractSubmissionTokensContractTest {
        private final JdbcSubmissionTokens a =
                JdbcSubmissionTokens.create(machineA, JdbcSubmissionTokens.DEFAULT_TABLE, true);
        private final JdbcSubmissionTokens b =
                JdbcSubmissionTokens.create(machineB, JdbcSubmissionTokens.DEFAULT_TABLE, true);

        @Override
        protected SubmissionTokens tokens() {
            return a;
        }

        @Override
        protected SubmissionTokens otherMachine() {
            return b;
        }

        @Override
        protected SubmissionTokens unreachableTokens() {
            return JdbcSubmissionTokens.create(unreachable, JdbcSubmissionTokens.DEFAULT_TABLE, true);
        }

        /**
         * The caller's-transaction form: the token's deletion rolls back with the transaction (the
         * token is usable again) and commits with it (spent for every machine).
         *
         * @throws SQLException the test's own transaction control failed: the test fails
         */
        @Test
        void aConsumeInTheCallersTransactionRollsBackAndCommitsWithIt() throws SQLException {
            String token = a.issue("jdbc-tx", "ivan", Duration.ofMinutes(5));
            try (Connection c = machineA.getConnection()) {
                c.setAutoCommit(false);
                assertThat(a.consume(c, "jdbc-tx", "ivan", token)).isTrue();
                c.rollback();
                assertThat(b.leased("jdbc-tx", token)).isFalse();
                assertThat(a.consume(c, "jdbc-tx", "ivan", token))
                        .as("usable after the rollback")
                        .isTrue();
                c.commit();
            }
            assertThat(b.consume("jdbc-tx", "ivan", token))
                    .as("spent with the commit")
                    .isFalse();
            assertThat(b.claim("jdbc-tx", "ivan", token)).isEmpty();
        }

        /**
         * {@code executeInTransaction}: a failed work leaves the token usable; of 16 concurrent
         * submits on two machines exactly one commits; a spent token is refused.
         *
         * @throws Exception a worker thread failed: the test fails
         */
        @Test
        void executeInTransactionCommitsOnceAndAFailedWorkLeavesTheTokenUsable() throws Exception {
            String token = a.issue("jdbc-tx", "jane", Duration.ofMinutes(5));
            assertThatThrownBy(() -> a.executeInTransaction("jdbc-tx", "jane", token, c -> {
                        throw new IllegalStateException("work failed");
                    }))
                    .isInstanceOf(IllegalStateException.class);

            ExecutorService threads = Executors.newFixedThreadPool(16);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Boolean>> submits = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    JdbcSubmissionTokens machine = i % 2 == 0 ? a : b;
                    submits.add(threads.submit(() -> {
                        start.await();
                        try {
                            return machine.executeInTransaction("jdbc-tx", "jane", token, c -> true);
                        } catch (TokenRefusedException refused) {
                            return false;
                        }
                    }));
                }
                start.countDown();
                int committed = 0;
                for (Future<Boolean> submit : submits) {
                    committed += submit.get(60, TimeUnit.SECONDS) ? 1 : 0;
                }
                assertThat(committed).isEqualTo(1);
            } finally {
                threads.shutdownNow();
            }
            assertThatThrownBy(() -> b.executeInTransaction("jdbc-tx", "jane", token, c -> true))
                    .isInstanceOf(TokenRefusedException.class);
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Throttle extends AbstractSubmitThrottleContractTest {
        private final JdbcSubmitThrottle a =
                JdbcSubmitThrottle.create(machineA, JdbcSubmitThrottle.DEFAULT_TABLE, true);
        private final JdbcSubmitThrottle b =
                JdbcSubmitThrottle.create(machineB, JdbcSubmitThrottle.DEFAULT_TABLE, true);

        @Override
        protected SubmitThrottle throttle() {
            return a;
        }

        @Override
        protected SubmitThrottle otherMachine() {
            return b;
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Prepared extends AbstractPreparedSubmissionsContractTest {
        private final JdbcPreparedSubmissions a =
                JdbcPreparedSubmissions.create(machineA, JdbcPreparedSubmissions.DEFAULT_TABLE, true);
        private final JdbcPreparedSubmissions b =
                JdbcPreparedSubmissions.create(machineB, JdbcPreparedSubmissions.DEFAULT_TABLE, true);

        @Override
        protected PreparedSubmissions submissions() {
            return a;
        }

        @Override
        protected PreparedSubmissions otherMachine() {
            return b;
        }

        /** A row lock holds on one server; on Galera only on the node that took it. */
        @Override
        protected int workRunsWhenCommitsRace() {
            return machines;
        }
    }
}

package io.dupguard.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.test.AbstractPreparedSubmissionsContractTest;
import io.dupguard.test.AbstractSubmissionTokensContractTest;
import io.dupguard.test.AbstractSubmitThrottleContractTest;
import io.dupguard.token.PreparedSubmissions;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;

/** Tokens, throttle and prepared submissions on one database; two pools stand in for two machines. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcSubmissionIT {
    private final HikariDataSource machineA;
    private final HikariDataSource machineB;

    AbstractJdbcSubmissionIT(Db db) {
        machineA = TestDatabases.pool(db, 16);
        machineB = TestDatabases.pool(db, 16);
    }

    @AfterAll
    void closePools() {
        machineA.close();
        machineB.close();
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
    }
}

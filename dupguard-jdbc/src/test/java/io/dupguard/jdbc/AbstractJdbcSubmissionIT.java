package io.dupguard.jdbc;

import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.test.AbstractPreparedSubmissionsContractTest;
import io.dupguard.test.AbstractSubmissionTokensContractTest;
import io.dupguard.test.AbstractSubmitThrottleContractTest;
import io.dupguard.token.PreparedSubmissions;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import java.util.function.IntFunction;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;

/** Tokens, throttle and prepared submissions on one database; two pools stand in for two machines. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcSubmissionIT {
    private final DataSource machineA;
    private final DataSource machineB;

    AbstractJdbcSubmissionIT(Db db) {
        this(size -> TestDatabases.pool(db, size));
    }

    /** The contracts with each machine's connections from {@code pools} (a size in, a data source out). */
    AbstractJdbcSubmissionIT(IntFunction<DataSource> pools) {
        machineA = pools.apply(16);
        machineB = pools.apply(16);
    }

    @AfterAll
    void closePools() {
        TestDatabases.close(machineA);
        TestDatabases.close(machineB);
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

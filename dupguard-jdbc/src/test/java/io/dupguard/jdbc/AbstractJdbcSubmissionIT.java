package io.dupguard.jdbc;

import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.jdbc.TestDatabases.MachinePools;
import io.dupguard.jdbc.TestDatabases.Servers;
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

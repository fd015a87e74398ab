package io.dupguard.jdbc;

import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.jdbc.TestDatabases.MachinePools;
import io.dupguard.jdbc.TestDatabases.Servers;
import io.dupguard.retry.RetryStore;
import io.dupguard.test.AbstractRetryStoreContractTest;
import java.util.function.IntFunction;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** The retry store contract on one database; each "machine" is a store on its own connection pool. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcRetryStoreIT extends AbstractRetryStoreContractTest {
    private final DataSource[] pools = new DataSource[3];
    private final JdbcRetryStore[] machines = new JdbcRetryStore[3];

    AbstractJdbcRetryStoreIT(Db db) {
        this(Servers.one(db));
    }

    /** Machine {@code i} connects to {@code servers}' server {@code i} (all to one, or a node each). */
    AbstractJdbcRetryStoreIT(Servers servers) {
        this((MachinePools) servers::pool);
    }

    /** The contract with each machine's connections from {@code pools} (a size in, a data source out). */
    AbstractJdbcRetryStoreIT(IntFunction<DataSource> pools) {
        this((MachinePools) (machine, size) -> pools.apply(size));
    }

    private AbstractJdbcRetryStoreIT(MachinePools pools) {
        for (int i = 0; i < 3; i++) {
            this.pools[i] = pools.pool(i, 8);
            machines[i] = TestDatabases.retries(this.pools[i]);
        }
    }

    /** A table of this run's own, for unblockAll(null); dropped after the class. */
    private final String ownTable = "dupguard_retry_own_"
            + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() & 0xffffffffL);

    private JdbcRetryStore own;

    @AfterAll
    void closePools() throws java.sql.SQLException {
        if (own != null) {
            try (java.sql.Connection c = pools[0].getConnection();
                    java.sql.Statement st = c.createStatement()) {
                st.execute("DROP TABLE " + ownTable);
            }
        }
        for (DataSource pool : pools) {
            TestDatabases.close(pool);
        }
    }

    @Override
    protected RetryStore storeOfItsOwn() {
        if (own == null) {
            own = JdbcRetryStore.builder(pools[0])
                    .tableName(ownTable)
                    .createSchemaIfMissing(true)
                    .build();
        }
        return own;
    }

    @Override
    protected RetryStore store() {
        return machines[0];
    }

    @Override
    protected RetryStore machine(int i) {
        return machines[i];
    }
}

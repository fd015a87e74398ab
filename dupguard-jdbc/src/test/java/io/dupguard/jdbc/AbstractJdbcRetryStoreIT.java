package io.dupguard.jdbc;

import io.dupguard.jdbc.TestDatabases.Db;
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
        this(size -> TestDatabases.pool(db, size));
    }

    /** The contract with each machine's connections from {@code pools} (a size in, a data source out). */
    AbstractJdbcRetryStoreIT(IntFunction<DataSource> pools) {
        for (int i = 0; i < 3; i++) {
            this.pools[i] = pools.apply(8);
            machines[i] = TestDatabases.retries(this.pools[i]);
        }
    }

    @AfterAll
    void closePools() {
        for (DataSource pool : pools) {
            TestDatabases.close(pool);
        }
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

package io.dupguard.jdbc;

import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.jdbc.TestDatabases.MachinePools;
import io.dupguard.jdbc.TestDatabases.Servers;
import io.dupguard.lock.LockProvider;
import io.dupguard.test.AbstractLockProviderContractTest;
import io.dupguard.test.FlakyDataSource;
import io.dupguard.test.StoreOutage;
import java.util.function.IntFunction;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** The lock contract on one database; each "machine" is a provider on its own connection pool. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcLockProviderIT extends AbstractLockProviderContractTest {
    private final DataSource[] pools = new DataSource[3];
    private final JdbcLockProvider[] machines = new JdbcLockProvider[3];
    private final DataSource flakyPool;
    private final FlakyDataSource flaky;
    private final JdbcLockProvider flakyMachine;

    AbstractJdbcLockProviderIT(Db db) {
        this(Servers.one(db));
    }

    /** Machine {@code i} connects to {@code servers}' server {@code i} (all to one, or a node each). */
    AbstractJdbcLockProviderIT(Servers servers) {
        this((MachinePools) servers::pool);
    }

    /** The contract with each machine's connections from {@code pools} (a size in, a data source out). */
    AbstractJdbcLockProviderIT(IntFunction<DataSource> pools) {
        this((MachinePools) (machine, size) -> pools.apply(size));
    }

    private AbstractJdbcLockProviderIT(MachinePools pools) {
        for (int i = 0; i < 3; i++) {
            this.pools[i] = pools.pool(i, 8);
            machines[i] = TestDatabases.locks(this.pools[i]);
        }
        flakyPool = pools.pool(0, 4);
        flaky = new FlakyDataSource(flakyPool);
        flakyMachine = TestDatabases.locks(flaky);
    }

    /** A machine whose pool refuses connections during the outage; machine 1 stays healthy. */
    @Override
    protected StoreOutage.Fixture<LockProvider> outageFixture() {
        return new StoreOutage.Fixture<>(flakyMachine, machines[1], flaky);
    }

    @AfterAll
    void closePools() {
        for (DataSource pool : pools) {
            TestDatabases.close(pool);
        }
        TestDatabases.close(flakyPool);
    }

    @Override
    protected LockProvider provider() {
        return machines[0];
    }

    @Override
    protected LockProvider machine(int i) {
        return machines[i];
    }
}

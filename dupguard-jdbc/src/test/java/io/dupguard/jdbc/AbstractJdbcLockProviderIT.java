package io.dupguard.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.jdbc.TestDatabases.Servers;
import io.dupguard.lock.LockProvider;
import io.dupguard.test.AbstractLockProviderContractTest;
import io.dupguard.test.FlakyDataSource;
import io.dupguard.test.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** The lock contract on one database; each "machine" is a provider on its own connection pool. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcLockProviderIT extends AbstractLockProviderContractTest {
    private final HikariDataSource[] pools = new HikariDataSource[3];
    private final JdbcLockProvider[] machines = new JdbcLockProvider[3];
    private final HikariDataSource flakyPool;
    private final FlakyDataSource flaky;
    private final JdbcLockProvider flakyMachine;

    AbstractJdbcLockProviderIT(Db db) {
        this(Servers.one(db));
    }

    /** Machine {@code i} connects to {@code servers}' server {@code i} (all to one, or a node each). */
    AbstractJdbcLockProviderIT(Servers servers) {
        for (int i = 0; i < 3; i++) {
            pools[i] = servers.pool(i, 8);
            machines[i] = TestDatabases.locks(pools[i]);
        }
        flakyPool = servers.pool(0, 4);
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
        for (HikariDataSource pool : pools) {
            pool.close();
        }
        flakyPool.close();
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

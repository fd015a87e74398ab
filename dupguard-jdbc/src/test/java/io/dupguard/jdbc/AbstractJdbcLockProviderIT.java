package io.dupguard.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.lock.LockProvider;
import io.dupguard.test.AbstractLockProviderContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** The lock contract on one database; each "machine" is a provider on its own connection pool. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcLockProviderIT extends AbstractLockProviderContractTest {
    private final HikariDataSource[] pools = new HikariDataSource[3];
    private final JdbcLockProvider[] machines = new JdbcLockProvider[3];

    AbstractJdbcLockProviderIT(Db db) {
        for (int i = 0; i < 3; i++) {
            pools[i] = TestDatabases.pool(db, 8);
            machines[i] = TestDatabases.locks(pools[i]);
        }
    }

    @AfterAll
    void closePools() {
        for (HikariDataSource pool : pools) {
            pool.close();
        }
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

package io.dupguard.lab.env;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.lock.LockProvider;
import io.dupguard.test.AbstractLockProviderContractTest;
import io.dupguard.test.FlakyDataSource;
import io.dupguard.test.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The lab's {@code lock} strategy uses {@link JdbcLockProvider} on the embedded H2, which runs in
 * PostgreSQL mode; the provider, which detects it as H2, must keep its whole contract there. Each
 * "machine" has its own pool on the same in-memory database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H2PostgresModeLockProviderTest extends AbstractLockProviderContractTest {
    private static final String URL = "jdbc:h2:mem:lab-lock-contract;DB_CLOSE_DELAY=-1;MODE=PostgreSQL";

    private final HikariDataSource[] pools = new HikariDataSource[3];
    private final JdbcLockProvider[] machines = new JdbcLockProvider[3];
    private final FlakyDataSource flaky;
    private final JdbcLockProvider flakyMachine;

    H2PostgresModeLockProviderTest() {
        for (int i = 0; i < 3; i++) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(URL);
            config.setMaximumPoolSize(8);
            config.setPoolName("lab-lock-contract-" + i);
            pools[i] = new HikariDataSource(config);
            machines[i] = JdbcLockProvider.builder(pools[i])
                    .createSchemaIfMissing(true)
                    .build();
        }
        flaky = new FlakyDataSource(pools[2]);
        flakyMachine = JdbcLockProvider.create(flaky);
    }

    @Override
    protected StoreOutage.Fixture<LockProvider> outageFixture() {
        return new StoreOutage.Fixture<>(flakyMachine, machines[1], flaky);
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

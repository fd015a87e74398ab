package io.dupguard.lab.env;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.test.AbstractIdempotencyStoreContractTest;
import io.dupguard.test.FlakyDataSource;
import io.dupguard.test.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The lab's embedded H2 runs in PostgreSQL mode (for {@code ON CONFLICT DO NOTHING}); the JDBC
 * store, which detects it as H2, must keep its whole contract there.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H2PostgresModeIdempotencyStoreTest extends AbstractIdempotencyStoreContractTest {
    private final LabEnvironment env = LabEnvironment.open(null, null);
    private final HikariDataSource down = unreachablePool();
    private final JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(env.dataSource())
            .createSchemaIfMissing(true)
            .build();
    private final FlakyDataSource flaky = new FlakyDataSource(env.dataSource());
    private final JdbcIdempotencyStore flakyStore = JdbcIdempotencyStore.create(flaky);

    @AfterAll
    void close() {
        down.close();
        env.close();
    }

    @Override
    protected IdempotencyStore store() {
        return store;
    }

    @Override
    protected StoreOutage.Fixture<IdempotencyStore> outageFixture() {
        return new StoreOutage.Fixture<>(flakyStore, store, flaky);
    }

    @Override
    protected IdempotencyStore unreachableStore() {
        return JdbcIdempotencyStore.create(down);
    }

    private static HikariDataSource unreachablePool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:tcp://127.0.0.1:1/nowhere");
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(250);
        config.setMaximumPoolSize(1);
        return new HikariDataSource(config);
    }
}

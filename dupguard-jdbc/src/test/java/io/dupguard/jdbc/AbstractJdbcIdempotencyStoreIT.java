package io.dupguard.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.test.AbstractIdempotencyStoreContractTest;
import io.dupguard.test.FlakyDataSource;
import io.dupguard.test.StoreOutage;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** The store contract on one database, with two pools standing in for two machines. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcIdempotencyStoreIT extends AbstractIdempotencyStoreContractTest {
    private final HikariDataSource machineA;
    private final HikariDataSource machineB;
    private final HikariDataSource down;
    private final JdbcIdempotencyStore storeA;
    private final JdbcIdempotencyStore storeB;
    private final HikariDataSource flakyPool;
    private final FlakyDataSource flaky;
    private final JdbcIdempotencyStore flakyStore;

    AbstractJdbcIdempotencyStoreIT(Db db) {
        this(db, TestDatabases::store);
    }

    /** The contract on stores that {@code stores} builds over each pool (its own table, say). */
    AbstractJdbcIdempotencyStoreIT(Db db, Function<DataSource, JdbcIdempotencyStore> stores) {
        machineA = TestDatabases.pool(db, 16);
        machineB = TestDatabases.pool(db, 16);
        down = TestDatabases.unreachable(db);
        storeA = stores.apply(machineA);
        storeB = stores.apply(machineB);
        flakyPool = TestDatabases.pool(db, 4);
        flaky = new FlakyDataSource(flakyPool);
        flakyStore = stores.apply(flaky);
    }

    @AfterAll
    void closePools() {
        machineA.close();
        machineB.close();
        down.close();
        flakyPool.close();
    }

    @Override
    protected IdempotencyStore store() {
        return storeA;
    }

    @Override
    protected IdempotencyStore otherMachineStore() {
        return storeB;
    }

    /** A machine whose pool refuses connections during the outage; machine B stays healthy. */
    @Override
    protected StoreOutage.Fixture<IdempotencyStore> outageFixture() {
        return new StoreOutage.Fixture<>(flakyStore, storeB, flaky);
    }

    @Override
    protected IdempotencyStore unreachableStore() {
        return JdbcIdempotencyStore.create(down);
    }
}

package io.dupguard.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.jdbc.TestDatabases.MachinePools;
import io.dupguard.jdbc.TestDatabases.Servers;
import io.dupguard.test.AbstractIdempotencyStoreContractTest;
import io.dupguard.test.FlakyDataSource;
import io.dupguard.test.StoreOutage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.IntFunction;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** The store contract on one database, with two pools standing in for two machines. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcIdempotencyStoreIT extends AbstractIdempotencyStoreContractTest {
    private final DataSource machineA;
    private final DataSource machineB;
    private final HikariDataSource down;
    private final JdbcIdempotencyStore storeA;
    private final JdbcIdempotencyStore storeB;
    private final DataSource flakyPool;
    private final FlakyDataSource flaky;
    private final JdbcIdempotencyStore flakyStore;
    private final Db db;
    private final AtomicLong statements = new AtomicLong();

    AbstractJdbcIdempotencyStoreIT(Db db) {
        this(db, TestDatabases::store);
    }

    /** The contract on stores that {@code stores} builds over each pool (its own table, say). */
    AbstractJdbcIdempotencyStoreIT(Db db, Function<DataSource, JdbcIdempotencyStore> stores) {
        this(db, (MachinePools) Servers.one(db)::pool, stores);
    }

    /** The contract with machine A on {@code servers}' first server and machine B on its second. */
    AbstractJdbcIdempotencyStoreIT(Servers servers) {
        this(servers.db(), (MachinePools) servers::pool, TestDatabases::store);
    }

    /** The contract with each machine's connections from {@code pools} (a size in, a data source out). */
    AbstractJdbcIdempotencyStoreIT(
            Db db, IntFunction<DataSource> pools, Function<DataSource, JdbcIdempotencyStore> stores) {
        this(db, (MachinePools) (machine, size) -> pools.apply(size), stores);
    }

    private AbstractJdbcIdempotencyStoreIT(
            Db db, MachinePools pools, Function<DataSource, JdbcIdempotencyStore> stores) {
        this.db = db;
        machineA = pools.pool(0, 16);
        machineB = pools.pool(1, 16);
        down = TestDatabases.unreachable(db);
        storeA = stores.apply(StatementCounter.wrap(machineA, statements));
        storeB = stores.apply(machineB);
        flakyPool = pools.pool(2, 4);
        flaky = new FlakyDataSource(flakyPool);
        flakyStore = stores.apply(flaky);
    }

    @AfterAll
    void closePools() {
        TestDatabases.close(machineA);
        TestDatabases.close(machineB);
        down.close();
        TestDatabases.close(flakyPool);
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

    /** Statements machine A sent; H2 runs in this JVM, so its batch claims are not counted. */
    @Override
    protected long roundTrips() {
        return db == Db.H2 ? -1 : statements.get();
    }

    /** MariaDB 10.5+ and PostgreSQL claim a batch in one statement (MySQL would take two). */
    @Override
    protected int claimAllRoundTrips(int keys) {
        return 1;
    }

    @Override
    protected IdempotencyStore unreachableStore() {
        return JdbcIdempotencyStore.create(down);
    }
}

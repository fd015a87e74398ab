package io.dupguard.shedlock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.lock.LockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The ShedLock suite on dupguard's JDBC locks in PostgreSQL, each node on its own pool. */
class PostgresShedLockIT extends AbstractShedLockContractIT {
    private static final HikariDataSource[] POOLS = new HikariDataSource[2];
    private static final LockProvider[] NODES = new LockProvider[2];

    @BeforeAll
    static void connect() {
        for (int i = 0; i < 2; i++) {
            POOLS[i] = pool("shedlock-node-" + i);
            NODES[i] = JdbcLockProvider.builder(POOLS[i])
                    .createSchemaIfMissing(true)
                    .build();
        }
    }

    static HikariDataSource pool(String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        config.setPoolName(name);
        config.setMaximumPoolSize(4);
        return new HikariDataSource(config);
    }

    @AfterAll
    static void closeAll() {
        for (HikariDataSource pool : POOLS) {
            pool.close();
        }
    }

    @Override
    protected LockProvider node(int i) {
        return NODES[i];
    }
}

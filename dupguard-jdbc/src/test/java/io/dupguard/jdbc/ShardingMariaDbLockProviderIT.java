package io.dupguard.jdbc;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The lock contract through ShardingSphere-JDBC over two MariaDb databases. */
@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class ShardingMariaDbLockProviderIT extends AbstractJdbcLockProviderIT {
    ShardingMariaDbLockProviderIT() {
        super(size -> ShardedDatabases.dataSource(TestDatabases.Db.MARIADB));
    }
}

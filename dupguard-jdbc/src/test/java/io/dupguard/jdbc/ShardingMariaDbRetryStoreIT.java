package io.dupguard.jdbc;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The retry store contract through ShardingSphere-JDBC over two MariaDb databases. */
@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class ShardingMariaDbRetryStoreIT extends AbstractShardedRetryStoreIT {
    ShardingMariaDbRetryStoreIT() {
        super(TestDatabases.Db.MARIADB);
    }
}

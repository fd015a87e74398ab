package io.dupguard.jdbc;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The retry log's worker pools through ShardingSphere-JDBC over two MariaDB databases (retry_stress sharded by task key). */
@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class ShardingMariaDbRetryLogIT extends AbstractJdbcRetryLogIT {
    ShardingMariaDbRetryLogIT() {
        super(TestDatabases.Servers.sharding(TestDatabases.Db.MARIADB));
    }

    /** Fewer tasks than on one server: a claim through ShardingSphere moves its tasks one statement each. */
    @Override
    int stressTasks() {
        return 1_500;
    }
}

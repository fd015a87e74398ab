package io.dupguard.jdbc;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The idempotency store contract (with batch claims) through ShardingSphere-JDBC over two MariaDb databases. */
@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class ShardingMariaDbIdempotencyStoreIT extends AbstractShardedIdempotencyStoreIT {
    ShardingMariaDbIdempotencyStoreIT() {
        super(TestDatabases.Db.MARIADB);
    }
}

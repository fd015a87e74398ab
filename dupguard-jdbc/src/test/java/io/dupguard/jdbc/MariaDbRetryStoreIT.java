package io.dupguard.jdbc;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class MariaDbRetryStoreIT extends AbstractJdbcRetryStoreIT {
    MariaDbRetryStoreIT() {
        super(TestDatabases.Db.MARIADB);
    }
}

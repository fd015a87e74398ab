package io.dupguard.jdbc;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The retry log's worker pools spread over the Galera nodes: the SKIP LOCKED claim locks rows only
 * on its own node, so two nodes may pick the same task, and the claim's certified update decides
 * which one runs it.
 */
@Execution(ExecutionMode.CONCURRENT) // in the Galera lane: see Lanes
@ResourceLock(Lanes.GALERA)
class GaleraRetryLogIT extends AbstractJdbcRetryLogIT {
    GaleraRetryLogIT() {
        super(TestDatabases.Servers.galera());
    }

    /** Fewer tasks than on one server: the suite's time budget; contention across nodes stays. */
    @Override
    int stressTasks() {
        return 3_000;
    }
}

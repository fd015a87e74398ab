package io.dupguard.jdbc;

/**
 * The retry log's worker pools spread over the Galera nodes: the SKIP LOCKED claim locks rows only
 * on its own node, so two nodes may pick the same task, and the claim's certified update decides
 * which one runs it.
 */
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

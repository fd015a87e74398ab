package io.dupguard.jdbc;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The contract with each machine on its own node of the Galera cluster. */
@Execution(ExecutionMode.CONCURRENT) // in the Galera lane: see Lanes
@ResourceLock(Lanes.GALERA)
class GaleraIdempotencyStoreIT extends AbstractJdbcIdempotencyStoreIT {
    GaleraIdempotencyStoreIT() {
        super(TestDatabases.Servers.galera());
    }

    /** The insert, then a read: {@code INSERT … RETURNING} is not used on Galera ({@link IdempotencySql}). */
    @Override
    protected int claimAllRoundTrips(int keys) {
        return 2;
    }
}

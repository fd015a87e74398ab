package io.dupguard.jdbc;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The contract with each machine on its own node of the Galera cluster. */
@Execution(ExecutionMode.CONCURRENT) // in the Galera lane: see Lanes
@ResourceLock(Lanes.GALERA)
class GaleraSubmissionIT extends AbstractJdbcSubmissionIT {
    GaleraSubmissionIT() {
        super(TestDatabases.Servers.galera());
    }
}

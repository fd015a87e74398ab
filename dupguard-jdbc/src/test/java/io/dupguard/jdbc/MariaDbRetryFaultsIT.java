package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class MariaDbRetryFaultsIT extends AbstractJdbcRetryFaultsIT {
    MariaDbRetryFaultsIT() {
        super(TestDatabases.Db.MARIADB);
    }

    @Override
    String backendIdQuery() {
        return "SELECT CONNECTION_ID()";
    }

    @Override
    void terminate(Connection admin, long backendId) throws SQLException {
        try (Statement st = admin.createStatement()) {
            st.execute("KILL CONNECTION " + backendId);
        }
    }
}

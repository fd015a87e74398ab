package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

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

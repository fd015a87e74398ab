package io.dupguard.jdbc;

class MariaDbRetryStoreIT extends AbstractJdbcRetryStoreIT {
    MariaDbRetryStoreIT() {
        super(TestDatabases.Db.MARIADB);
    }
}

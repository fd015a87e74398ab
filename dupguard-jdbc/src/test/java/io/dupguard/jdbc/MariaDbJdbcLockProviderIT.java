package io.dupguard.jdbc;

class MariaDbJdbcLockProviderIT extends AbstractJdbcLockProviderIT {
    MariaDbJdbcLockProviderIT() {
        super(TestDatabases.Db.MARIADB);
    }
}

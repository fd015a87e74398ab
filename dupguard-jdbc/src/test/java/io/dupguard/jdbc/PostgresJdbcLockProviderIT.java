package io.dupguard.jdbc;

class PostgresJdbcLockProviderIT extends AbstractJdbcLockProviderIT {
    PostgresJdbcLockProviderIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }
}

package io.dupguard.jdbc;

class H2JdbcLockProviderTest extends AbstractJdbcLockProviderIT {
    H2JdbcLockProviderTest() {
        super(TestDatabases.Db.H2);
    }
}

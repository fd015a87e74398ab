package io.dupguard.jdbc;

class H2RetryStoreTest extends AbstractJdbcRetryStoreIT {
    H2RetryStoreTest() {
        super(TestDatabases.Db.H2);
    }
}

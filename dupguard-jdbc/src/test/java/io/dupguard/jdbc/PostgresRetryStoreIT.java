package io.dupguard.jdbc;

class PostgresRetryStoreIT extends AbstractJdbcRetryStoreIT {
    PostgresRetryStoreIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }
}

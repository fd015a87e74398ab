package io.dupguard.jdbc;

class PostgresIdempotencyStoreIT extends AbstractJdbcIdempotencyStoreIT {
    PostgresIdempotencyStoreIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }
}

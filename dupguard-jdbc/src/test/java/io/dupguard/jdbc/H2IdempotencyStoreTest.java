package io.dupguard.jdbc;

class H2IdempotencyStoreTest extends AbstractJdbcIdempotencyStoreIT {
    H2IdempotencyStoreTest() {
        super(TestDatabases.Db.H2);
    }
}

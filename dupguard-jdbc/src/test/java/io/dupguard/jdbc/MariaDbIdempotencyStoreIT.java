package io.dupguard.jdbc;

class MariaDbIdempotencyStoreIT extends AbstractJdbcIdempotencyStoreIT {
    MariaDbIdempotencyStoreIT() {
        super(TestDatabases.Db.MARIADB);
    }
}

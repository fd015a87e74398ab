package io.dupguard.jdbc;

/** The idempotency store contract (with batch claims) through ShardingSphere-JDBC over two MariaDb databases. */
class ShardingMariaDbIdempotencyStoreIT extends AbstractShardedIdempotencyStoreIT {
    ShardingMariaDbIdempotencyStoreIT() {
        super(TestDatabases.Db.MARIADB);
    }
}

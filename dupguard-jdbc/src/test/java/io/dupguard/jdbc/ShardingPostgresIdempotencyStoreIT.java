package io.dupguard.jdbc;

/** The idempotency store contract (with batch claims) through ShardingSphere-JDBC over two Postgres databases. */
class ShardingPostgresIdempotencyStoreIT extends AbstractShardedIdempotencyStoreIT {
    ShardingPostgresIdempotencyStoreIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }
}

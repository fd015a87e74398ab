package io.dupguard.jdbc;

/** The retry store contract through ShardingSphere-JDBC over two Postgres databases. */
class ShardingPostgresRetryStoreIT extends AbstractShardedRetryStoreIT {
    ShardingPostgresRetryStoreIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }
}

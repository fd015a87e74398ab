package io.dupguard.jdbc;

/** The retry store contract through ShardingSphere-JDBC over two MariaDb databases. */
class ShardingMariaDbRetryStoreIT extends AbstractShardedRetryStoreIT {
    ShardingMariaDbRetryStoreIT() {
        super(TestDatabases.Db.MARIADB);
    }
}

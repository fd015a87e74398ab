package io.dupguard.jdbc;

/** The lock contract through ShardingSphere-JDBC over two Postgres databases. */
class ShardingPostgresLockProviderIT extends AbstractJdbcLockProviderIT {
    ShardingPostgresLockProviderIT() {
        super(size -> ShardedDatabases.dataSource(TestDatabases.Db.POSTGRESQL));
    }
}

package io.dupguard.jdbc;

/** The lock contract through ShardingSphere-JDBC over two MariaDb databases. */
class ShardingMariaDbLockProviderIT extends AbstractJdbcLockProviderIT {
    ShardingMariaDbLockProviderIT() {
        super(size -> ShardedDatabases.dataSource(TestDatabases.Db.MARIADB));
    }
}

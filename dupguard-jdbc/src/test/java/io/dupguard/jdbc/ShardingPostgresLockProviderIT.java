package io.dupguard.jdbc;

/** The lock contract through ShardingSphere-JDBC over two Postgres databases. */
class ShardingPostgresLockProviderIT extends AbstractJdbcLockProviderIT {
    ShardingPostgresLockProviderIT() {
        super(size -> ShardedDatabases.dataSource(TestDatabases.Db.POSTGRESQL));
    }

    /**
     * 16 threads on 3 machines still contend for one row; a third of the unsharded suites'
     * acquisitions (each a round trip through ShardingSphere's parser and router) keeps the class
     * from being the slowest of the module: 17 s for 150 per thread.
     */
    @Override
    protected int acquisitionsPerThread() {
        return 50;
    }
}

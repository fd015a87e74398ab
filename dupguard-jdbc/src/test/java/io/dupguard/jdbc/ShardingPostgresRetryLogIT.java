package io.dupguard.jdbc;

/** The retry log's worker pools through ShardingSphere-JDBC over two PostgreSQL databases (retry_stress sharded by task key). */
class ShardingPostgresRetryLogIT extends AbstractJdbcRetryLogIT {
    ShardingPostgresRetryLogIT() {
        super(TestDatabases.Servers.sharding(TestDatabases.Db.POSTGRESQL));
    }

    /** Fewer tasks than on one server: a claim through ShardingSphere moves its tasks one statement each. */
    @Override
    int stressTasks() {
        return 1_500;
    }
}

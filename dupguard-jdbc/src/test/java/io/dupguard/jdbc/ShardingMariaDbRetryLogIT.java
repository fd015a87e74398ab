package io.dupguard.jdbc;

/** The retry log's worker pools through ShardingSphere-JDBC over two MariaDB databases (retry_stress sharded by task key). */
class ShardingMariaDbRetryLogIT extends AbstractJdbcRetryLogIT {
    ShardingMariaDbRetryLogIT() {
        super(TestDatabases.Servers.sharding(TestDatabases.Db.MARIADB));
    }

    /** Fewer tasks than on one server: a claim through ShardingSphere moves its tasks one statement each. */
    @Override
    int stressTasks() {
        return 1_500;
    }
}

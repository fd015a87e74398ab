package io.dupguard.jdbc;

/** Tokens, throttle and prepared submissions through ShardingSphere-JDBC over two MariaDb databases. */
class ShardingMariaDbSubmissionIT extends AbstractJdbcSubmissionIT {
    ShardingMariaDbSubmissionIT() {
        super(size -> ShardedDatabases.dataSource(TestDatabases.Db.MARIADB));
    }
}

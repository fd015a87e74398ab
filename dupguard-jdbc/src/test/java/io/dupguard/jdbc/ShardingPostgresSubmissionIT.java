package io.dupguard.jdbc;

/** Tokens, throttle and prepared submissions through ShardingSphere-JDBC over two Postgres databases. */
class ShardingPostgresSubmissionIT extends AbstractJdbcSubmissionIT {
    ShardingPostgresSubmissionIT() {
        super(size -> ShardedDatabases.dataSource(TestDatabases.Db.POSTGRESQL));
    }
}

package io.dupguard.jdbc;

class PostgresRetryLogIT extends AbstractJdbcRetryLogIT {
    PostgresRetryLogIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }
}

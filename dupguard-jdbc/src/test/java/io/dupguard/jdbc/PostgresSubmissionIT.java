package io.dupguard.jdbc;

class PostgresSubmissionIT extends AbstractJdbcSubmissionIT {
    PostgresSubmissionIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }
}

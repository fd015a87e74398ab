package io.dupguard.jdbc;

class H2SubmissionTest extends AbstractJdbcSubmissionIT {
    H2SubmissionTest() {
        super(TestDatabases.Db.H2);
    }
}

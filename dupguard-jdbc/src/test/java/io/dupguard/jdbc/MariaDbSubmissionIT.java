package io.dupguard.jdbc;

class MariaDbSubmissionIT extends AbstractJdbcSubmissionIT {
    MariaDbSubmissionIT() {
        super(TestDatabases.Db.MARIADB);
    }
}

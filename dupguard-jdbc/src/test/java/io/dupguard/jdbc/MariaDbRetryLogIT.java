package io.dupguard.jdbc;

class MariaDbRetryLogIT extends AbstractJdbcRetryLogIT {
    MariaDbRetryLogIT() {
        super(TestDatabases.Db.MARIADB);
    }
}

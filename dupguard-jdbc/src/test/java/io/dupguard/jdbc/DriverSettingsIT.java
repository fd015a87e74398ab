package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.jdbc.TestDatabases.Db;
import java.sql.Connection;
import java.sql.DriverManager;
import org.junit.jupiter.api.Test;

/** The start-up check of the driver settings that decide whether statements are parsed once. */
class DriverSettingsIT {

    @Test
    void mariaDbWithoutServerPreparedStatementsIsNamedWithTheSettingToAdd() throws Exception {
        try (Connection c = DriverManager.getConnection(TestDatabases.url(Db.MARIADB))) {
            assertThat(DriverSettings.mysqlProblem(c)).contains("useServerPrepStmts=true");
        }
    }

    @Test
    void mariaDbWithServerPreparedStatementsPasses() throws Exception {
        try (Connection c = DriverManager.getConnection(TestDatabases.url(Db.MARIADB) + "&useServerPrepStmts=true")) {
            assertThat(DriverSettings.mysqlProblem(c)).isNull();
        }
    }

    @Test
    void postgresDefaultsPassAndAZeroPrepareThresholdIsNamed() throws Exception {
        try (Connection c = DriverManager.getConnection(TestDatabases.url(Db.POSTGRESQL))) {
            assertThat(DriverSettings.postgresProblem(c)).isNull();
        }
        try (Connection c = DriverManager.getConnection(TestDatabases.url(Db.POSTGRESQL) + "&prepareThreshold=0")) {
            assertThat(DriverSettings.postgresProblem(c)).contains("prepareThreshold is 0");
        }
    }
}

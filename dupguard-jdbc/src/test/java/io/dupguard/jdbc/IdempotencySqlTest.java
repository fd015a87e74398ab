package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IdempotencySqlTest {
    @Test
    void mariaDb105AndLaterClaimInOneRoundTrip() {
        assertThat(IdempotencySql.mariaDbReturning("10.11.19-MariaDB-0+deb12u1"))
                .isTrue();
        assertThat(IdempotencySql.mariaDbReturning("5.5.5-10.11.19-MariaDB-log"))
                .isTrue(); // via Connector/J
        assertThat(IdempotencySql.mariaDbReturning("10.5.0-MariaDB")).isTrue();
        assertThat(IdempotencySql.mariaDbReturning("11.4.2-MariaDB-ubu2404")).isTrue();
        assertThat(IdempotencySql.mariaDbReturning("10.4.32-MariaDB")).isFalse();
        assertThat(IdempotencySql.mariaDbReturning("8.0.36")).isFalse(); // MySQL has no INSERT … RETURNING
        assertThat(IdempotencySql.mariaDbReturning(null)).isFalse();
    }

    @Test
    void onlyMariaDbGetsTheReturningClaim() {
        assertThat(new IdempotencySql(SqlDialect.MYSQL, "t", true, true, true).insertReturning)
                .startsWith("INSERT INTO t ")
                .contains("ON DUPLICATE KEY UPDATE scope = scope RETURNING status, fingerprint, owner, payload");
        assertThat(new IdempotencySql(SqlDialect.MYSQL, "t", true, true, false).insertReturning)
                .isNull();
        assertThat(new IdempotencySql(SqlDialect.POSTGRESQL, "t", true, false, false).insertReturning)
                .isNull();
        assertThat(new IdempotencySql(SqlDialect.H2, "t", true, false, false).insertReturning)
                .isNull();
    }
}

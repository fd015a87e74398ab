package io.dupguard.jdbc.dedupe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.Lanes;
import io.dupguard.jdbc.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class MariaDbDedupeIT extends DedupeContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.MYSQL;
    }

    @Test
    void exactGuardOnACaseInsensitiveCollationIsRefusedNamingTheCollation() throws SQLException {
        Dedupe dedupe = dedupe().rate(Rate.UNLIMITED).build();
        dedupe.apply(p -> {}, () -> false);

        assertThatThrownBy(dedupe::guard)
                .isInstanceOf(DedupeException.class)
                .hasMessageContaining("utf8mb4_general_ci")
                .hasMessageContaining("K6");
        assertThat(count(TABLE)).isEqualTo(9);
    }

    @Test
    void aUserWithoutDeletePrivilegeGetsAClearErrorAndNothingIsDeleted() throws SQLException {
        String database;
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            database = c.getCatalog();
            s.execute("CREATE USER IF NOT EXISTS 'dedupe_reader'@'%'");
            s.execute(
                    "GRANT SELECT, INSERT, UPDATE, CREATE, ALTER, INDEX ON " + database + ".* TO 'dedupe_reader'@'%'");
        }
        String url = url().replace("user=root", "user=dedupe_reader");
        try (HikariDataSource reader = DedupeDb.pool(url, 2)) {
            Dedupe dedupe = Dedupe.builder(reader)
                    .table(TABLE)
                    .key("open_id")
                    .rate(Rate.UNLIMITED)
                    .build();
            assertThatThrownBy(() -> dedupe.apply(p -> {}, () -> false))
                    .isInstanceOf(DedupeException.class)
                    .hasMessageContaining("privilege")
                    .hasMessageContaining("t_account")
                    .matches(e -> ((DedupeException) e).isBadInput());
        } finally {
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("DROP USER IF EXISTS 'dedupe_reader'@'%'");
            }
        }
        assertThat(count(TABLE)).isEqualTo(12);
        assertThat(count(TABLE + "_dedupe_backup")).isZero();
    }
}

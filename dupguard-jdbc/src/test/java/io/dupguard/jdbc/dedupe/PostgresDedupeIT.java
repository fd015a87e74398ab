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

@Execution(ExecutionMode.CONCURRENT) // in the PostgreSQL clean-up lane: see Lanes
@ResourceLock(Lanes.POSTGRES_DEDUPE)
class PostgresDedupeIT extends DedupeContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }

    @Test
    void guardDropsAnInvalidIndexLeftByAFailedConcurrentBuild() throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute(
                            "CREATE UNIQUE INDEX CONCURRENTLY ux_t_account_open_id ON t_account ((LOWER(open_id)))"))
                    .isInstanceOf(SQLException.class);
        }
        Dedupe dedupe =
                dedupe().compare(Comparison.IGNORE_CASE).rate(Rate.UNLIMITED).build();
        dedupe.apply(p -> {}, () -> false);

        GuardResult guard = dedupe.guard();

        assertThat(guard.invalidIndexesDropped()).isEqualTo(1);
        assertThat(guard.valid()).isTrue();
    }

    @Test
    void nfcFindsTwoSpellingsOfTheSameLetter() throws SQLException {
        insert("caf\u00e9");
        insert("cafe\u0301");

        assertThat(dedupe().compare(Comparison.NFC).build().scan().groups()).isEqualTo(3 + 1);
        assertThat(dedupe().build().scan().groups()).isEqualTo(3);
    }

    @Test
    void aUserWithoutDeletePrivilegeGetsAClearErrorAndNothingIsDeleted() throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dedupe_reader') THEN"
                    + " CREATE ROLE dedupe_reader LOGIN; END IF; END $$");
            s.execute("GRANT SELECT ON t_account TO dedupe_reader");
            s.execute("GRANT USAGE, CREATE ON SCHEMA public TO dedupe_reader");
        }
        String url = DedupeDb.url(dialect()).replace("user=postgres", "user=dedupe_reader");
        try (HikariDataSource reader = DedupeDb.pool(url, 2)) {
            Dedupe dedupe = Dedupe.builder(reader)
                    .table(TABLE)
                    .key("open_id")
                    .backupTable("reader_backup")
                    .rate(Rate.UNLIMITED)
                    .build();
            assertThatThrownBy(() -> dedupe.apply(p -> {}, () -> false))
                    .isInstanceOf(DedupeException.class)
                    .hasMessageContaining("privilege")
                    .hasMessageContaining("t_account");
        } finally {
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS reader_backup");
                s.execute("DROP TABLE IF EXISTS t_account_dedupe_plan");
                s.execute("DROP OWNED BY dedupe_reader");
            }
        }
        assertThat(count(TABLE)).isEqualTo(12);
    }
}

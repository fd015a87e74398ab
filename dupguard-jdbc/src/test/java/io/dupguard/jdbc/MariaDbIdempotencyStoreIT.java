package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class MariaDbIdempotencyStoreIT extends AbstractJdbcIdempotencyStoreIT {
    MariaDbIdempotencyStoreIT() {
        super(TestDatabases.Db.MARIADB);
    }

    /** MariaDB 10.5+: a duplicate's claim is one statement (INSERT … RETURNING answers with the row). */
    @Test
    void aDuplicateClaimIsOneStatement() throws SQLException {
        try (HikariDataSource one = TestDatabases.pool(TestDatabases.Db.MARIADB, 1)) {
            JdbcIdempotencyStore store = TestDatabases.store(one);
            IdempotencyKey key = IdempotencyKey.of("one-trip", UUID.randomUUID().toString());
            Fingerprint fp = Fingerprint.ofString("body");
            assertThat(store.claim(key, fp, "owner-1", Duration.ofMinutes(1))).isEqualTo(Claim.FRESH);
            long before = executions(one);
            Claim second = store.claim(key, fp, "owner-2", Duration.ofMinutes(1));
            long statements = executions(one) - before;
            assertThat(second).isInstanceOf(Claim.Existing.class);
            assertThat(((Claim.Existing) second).record().owner()).isEqualTo("owner-1");
            assertThat(statements)
                    .as("statements (insert/select/update/delete) run by the duplicate claim")
                    .isEqualTo(1);
        }
    }

    private static long executions(HikariDataSource one) throws SQLException {
        try (Connection c = one.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW SESSION STATUS WHERE Variable_name IN"
                        + " ('Com_insert', 'Com_select', 'Com_update', 'Com_delete')")) {
            long sum = 0;
            while (rs.next()) {
                sum += rs.getLong(2);
            }
            return sum;
        }
    }
}

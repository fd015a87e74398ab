package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The whole store contract on MariaDB with the table clustered by an {@code AUTO_INCREMENT id} and
 * {@code (scope, idem_key)} as a unique secondary key — the layout docs/idempotency.md offers for
 * tables of millions of keys. The store's statements name only {@code (scope, idem_key)}, so they
 * run unchanged; this proves it, including the one-statement claim's fresh/duplicate decision.
 */
@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class MariaDbSurrogateKeyIdempotencyStoreIT extends AbstractJdbcIdempotencyStoreIT {
    static final String TABLE = "dupguard_idem_surrogate_it";

    MariaDbSurrogateKeyIdempotencyStoreIT() {
        super(TestDatabases.Db.MARIADB, MariaDbSurrogateKeyIdempotencyStoreIT::surrogateStore);
    }

    /** A store on {@link #TABLE}, created with the shipped DDL and then given the surrogate key once. */
    static JdbcIdempotencyStore surrogateStore(DataSource ds) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                .tableName(TABLE)
                .createSchemaIfMissing(true)
                .build();
        store.dialect(); // creates the table
        try (Connection c = ds.getConnection()) {
            if (!TableLayout.hasColumn(c, SqlDialect.MYSQL, TABLE, "id")) {
                try (Statement s = c.createStatement()) {
                    s.execute(JdbcIdempotencyStore.mysqlSurrogateKeyLayout(TABLE));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return store;
    }

    @Test
    void theTableIsClusteredByTheSurrogateKeyAndAClaimIsDecidedByTheUniqueKey() throws SQLException {
        JdbcIdempotencyStore store = (JdbcIdempotencyStore) store();
        IdempotencyKey key = IdempotencyKey.of("surrogate", UUID.randomUUID().toString());
        assertThat(store.claim(key, Fingerprint.none(), "owner-1", Duration.ofMinutes(1)))
                .isEqualTo(Claim.FRESH);
        Claim again = otherMachineStore().claim(key, Fingerprint.none(), "owner-2", Duration.ofMinutes(1));
        assertThat(again).isInstanceOf(Claim.Existing.class);
        assertThat(((Claim.Existing) again).record().owner()).isEqualTo("owner-1");
        try (HikariDataSource one = TestDatabases.pool(TestDatabases.Db.MARIADB, 1);
                Connection c = one.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COLUMN_NAME FROM information_schema.STATISTICS"
                        + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" + TABLE + "'"
                        + " AND INDEX_NAME = 'PRIMARY'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("id");
        }
    }

    @Test
    void theLayoutStatementRefusesATableNameThatIsNotAPlainIdentifier() {
        assertThatThrownBy(() -> JdbcIdempotencyStore.mysqlSurrogateKeyLayout("idem; DROP TABLE x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table must be a plain SQL identifier");
    }
}

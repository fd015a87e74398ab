package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jdbc.TestDatabases.Db;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** JDBC-only behaviour: schema, configuration, purge, dialects. */
class JdbcIdempotencyStoreIT {

    @ParameterizedTest
    @EnumSource(Db.class)
    void detectsTheDialect(Db db) {
        try (HikariDataSource ds = TestDatabases.pool(db, 2)) {
            assertThat(TestDatabases.store(ds).dialect())
                    .isEqualTo(db == Db.MARIADB ? SqlDialect.MYSQL : SqlDialect.valueOf(db.name()));
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void createsACustomTableAndPurgesExpiredRowsInBatches(Db db) throws SQLException {
        try (HikariDataSource ds = TestDatabases.pool(db, 4)) {
            try (Connection c = ds.getConnection();
                    Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS app_idem_purge");
            }
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                    .tableName("app_idem_purge")
                    .createSchemaIfMissing(true)
                    .build();
            Idempotency shortLived = Idempotency.of(
                    store,
                    IdempotencyConfig.custom().retention(Duration.ofMillis(200)).build());
            Idempotency longLived = Idempotency.of(store);
            for (int i = 0; i < 25; i++) {
                shortLived.execute(IdempotencyKey.of("purge", "old-" + i), Fingerprint.none(), Integer.class, () -> 1);
            }
            longLived.execute(IdempotencyKey.of("purge", "keep"), Fingerprint.none(), Integer.class, () -> 1);

            await().atMost(Duration.ofSeconds(10)).until(() -> store.find(IdempotencyKey.of("purge", "old-24"))
                    .isEmpty());

            assertThat(store.purgeExpired(10)).isEqualTo(10);
            assertThat(store.purgeAllExpired(10, Duration.ZERO)).isEqualTo(15);
            assertThat(store.purgeExpired(10)).isZero();
            assertThat(store.find(IdempotencyKey.of("purge", "keep"))).isPresent();
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void missingTableIsAClearStoreError(Db db) {
        try (HikariDataSource ds = TestDatabases.pool(db, 2)) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                    .tableName("dupguard_no_such_table")
                    .build();
            assertThatThrownBy(() -> store.find(IdempotencyKey.of("s", "k")))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("find s/k failed")
                    .hasMessageContaining("SQLState");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1table", "orders; DROP TABLE x", "a-b", "schema.table"})
    void rejectsTableNamesThatAreNotPlainIdentifiers(String bad) {
        try (HikariDataSource ds = TestDatabases.pool(Db.H2, 1)) {
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(ds).tableName(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tableName");
        }
    }

    @Test
    void namesDialectsAndRejectsUnknownOnes() {
        assertThat(SqlDialect.named("MariaDB")).isEqualTo(SqlDialect.MYSQL);
        assertThat(SqlDialect.named("postgres")).isEqualTo(SqlDialect.POSTGRESQL);
        assertThatThrownBy(() -> SqlDialect.named("oracle"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown SQL dialect 'oracle'; known: h2, postgresql, mysql");
    }

    @Test
    void shippedSchemaParsesIntoStatements() {
        for (SqlDialect d : SqlDialect.values()) {
            assertThat(SchemaInitializer.statements(d)).isNotEmpty().allMatch(s -> s.startsWith("CREATE"));
        }
    }
}

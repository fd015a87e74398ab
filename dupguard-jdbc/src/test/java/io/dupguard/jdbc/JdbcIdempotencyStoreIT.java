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
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.test.ExpectedWarnings;
import io.dupguard.test.FlakyDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
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
            drop(ds, "app_idem_purge");
            // The purge column of a claim is now + lease + typical retention: short ones here.
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                    .tableName("app_idem_purge")
                    .typicalRetention(Duration.ofMillis(1))
                    .createSchemaIfMissing(true)
                    .build();
            Idempotency shortLived = Idempotency.of(
                    store,
                    IdempotencyConfig.custom()
                            .inFlightLease(Duration.ofMillis(300))
                            .retention(Duration.ofMillis(200))
                            .build());
            Idempotency longLived = Idempotency.of(store);
            for (int i = 0; i < 25; i++) {
                shortLived.execute(IdempotencyKey.of("purge", "old-" + i), Fingerprint.none(), Integer.class, () -> 1);
            }
            longLived.execute(IdempotencyKey.of("purge", "keep"), Fingerprint.none(), Integer.class, () -> 1);

            await().atMost(Duration.ofSeconds(10)).until(() -> rows(ds, db, "app_idem_purge", "purge_after <= ") == 25);

            assertThat(store.purgeExpired(10)).isEqualTo(10);
            assertThat(store.purgeAllExpired(10, Duration.ZERO)).isEqualTo(15);
            assertThat(store.purgeExpired(10)).isZero();
            assertThat(store.find(IdempotencyKey.of("purge", "keep"))).isPresent();
        }
    }

    /**
     * A paced purge whose connection is refused once surfaces the outage — it never reads as "the
     * backlog is gone" — deletes nothing it should keep, and the next run deletes every expired row.
     */
    @ParameterizedTest
    @EnumSource(Db.class)
    void aPacedPurgeSurfacesARefusedConnectionAndTheNextRunFinishes(Db db) throws SQLException {
        try (HikariDataSource ds = TestDatabases.pool(db, 4)) {
            drop(ds, "app_idem_paced");
            FlakyDataSource flaky = new FlakyDataSource(ds);
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(flaky)
                    .tableName("app_idem_paced")
                    .typicalRetention(Duration.ofMillis(1))
                    .createSchemaIfMissing(true)
                    .build();
            Idempotency shortLived = Idempotency.of(
                    store,
                    IdempotencyConfig.custom()
                            .inFlightLease(Duration.ofMillis(300))
                            .retention(Duration.ofMillis(200))
                            .build());
            for (int i = 0; i < 25; i++) {
                shortLived.execute(IdempotencyKey.of("paced", "old-" + i), Fingerprint.none(), Integer.class, () -> 1);
            }
            Idempotency.of(store)
                    .execute(IdempotencyKey.of("paced", "keep"), Fingerprint.none(), Integer.class, () -> 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> rows(ds, db, "app_idem_paced", "purge_after <= ") == 25);
            PacedPurge paced = PacedPurge.dutyCycle(0.5);

            flaky.refuseNext(1);
            assertThatThrownBy(() -> paced.drain(10, store::purgeExpired))
                    .isInstanceOf(StoreUnavailableException.class);
            assertThat(rows(ds, db, "app_idem_paced", "purge_after <= ")).isEqualTo(25);

            assertThat(paced.drain(10, store::purgeExpired)).isEqualTo(25);
            assertThat(store.find(IdempotencyKey.of("paced", "keep"))).isPresent();
        }
    }

    /**
     * A completion within the lease and the typical retention leaves the indexed purge column as
     * the claim set it (so it changes no indexed column: HOT on PostgreSQL); a longer retention
     * raises it so the purge never comes early.
     */
    @ParameterizedTest
    @EnumSource(Db.class)
    void completionLeavesThePurgeColumnUnlessTheRetentionReachesFurther(Db db) throws SQLException {
        try (HikariDataSource ds = TestDatabases.pool(db, 4)) {
            drop(ds, "app_idem_hot");
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                    .tableName("app_idem_hot")
                    .createSchemaIfMissing(true)
                    .build();
            IdempotencyKey usual = IdempotencyKey.of("hot", "usual");
            IdempotencyKey longer = IdempotencyKey.of("hot", "longer");
            store.claim(usual, Fingerprint.none(), "owner-1", Duration.ofSeconds(30));
            store.claim(longer, Fingerprint.none(), "owner-2", Duration.ofSeconds(30));
            String claimedUsual = purgeAfter(ds, "usual");
            String claimedLonger = purgeAfter(ds, "longer");

            store.complete(usual, "owner-1", RecordStatus.COMPLETED, new byte[] {1}, Duration.ofHours(24));
            store.complete(longer, "owner-2", RecordStatus.COMPLETED, new byte[] {1}, Duration.ofDays(7));

            assertThat(purgeAfter(ds, "usual")).isEqualTo(claimedUsual);
            assertThat(purgeAfter(ds, "longer")).isGreaterThan(claimedLonger);
            assertThat(rows(ds, db, "app_idem_hot", "purge_after >= expires_at AND expires_at > "))
                    .isEqualTo(2);
        }
    }

    /**
     * A table created by an earlier version (expiry indexed, no purge column, hex fingerprint) keeps
     * working, fingerprint check included.
     */
    @ParameterizedTest
    @ExpectedWarnings("the store warns that the table has an earlier version's layout")
    @EnumSource(Db.class)
    void aTableOfTheEarlierLayoutStillWorksAndPurges(Db db) throws SQLException {
        try (HikariDataSource ds = TestDatabases.pool(db, 4)) {
            drop(ds, "app_idem_legacy");
            try (Connection c = ds.getConnection();
                    Statement st = c.createStatement()) {
                st.execute(
                        switch (db) {
                            case POSTGRESQL ->
                                "CREATE TABLE app_idem_legacy (scope VARCHAR(64) COLLATE \"C\" NOT NULL,"
                                        + " idem_key VARCHAR(255) COLLATE \"C\" NOT NULL, status CHAR(1) NOT NULL,"
                                        + " fingerprint VARCHAR(64) NOT NULL, owner VARCHAR(64), payload BYTEA,"
                                        + " created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),"
                                        + " expires_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (scope, idem_key))";
                            case MARIADB ->
                                "CREATE TABLE app_idem_legacy (scope VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin"
                                        + " NOT NULL, idem_key VARBINARY(1020) NOT NULL, status CHAR(1) CHARACTER SET"
                                        + " ascii COLLATE ascii_bin NOT NULL, fingerprint VARCHAR(64) CHARACTER SET ascii"
                                        + " COLLATE ascii_bin NOT NULL, owner VARCHAR(64) CHARACTER SET ascii COLLATE"
                                        + " ascii_bin NULL, payload LONGBLOB NULL, created_at DATETIME(6) NOT NULL"
                                        + " DEFAULT CURRENT_TIMESTAMP(6), expires_at DATETIME(6) NOT NULL,"
                                        + " PRIMARY KEY (scope, idem_key), KEY app_idem_legacy_expires_at (expires_at))";
                            case H2 ->
                                "CREATE TABLE app_idem_legacy (scope VARCHAR(64) NOT NULL, idem_key VARCHAR(255) NOT NULL,"
                                        + " status CHAR(1) NOT NULL, fingerprint VARCHAR(64) NOT NULL, owner VARCHAR(64),"
                                        + " payload VARBINARY(1000000000), created_at TIMESTAMP(6) WITH TIME ZONE"
                                        + " DEFAULT CURRENT_TIMESTAMP NOT NULL, expires_at TIMESTAMP(6) WITH TIME ZONE"
                                        + " NOT NULL, PRIMARY KEY (scope, idem_key))";
                        });
            }
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                    .tableName("app_idem_legacy")
                    .createSchemaIfMissing(true) // finds the table: creates nothing
                    .build();
            Idempotency shortLived = Idempotency.of(
                    store,
                    IdempotencyConfig.custom().retention(Duration.ofMillis(100)).build());
            Idempotency usual = Idempotency.of(store);

            Fingerprint fp = Fingerprint.ofString("legacy-a");
            assertThat(usual.execute(IdempotencyKey.of("legacy", "a"), fp, Integer.class, () -> 1)
                            .isReplay())
                    .isFalse();
            assertThat(usual.execute(IdempotencyKey.of("legacy", "a"), fp, Integer.class, () -> 2)
                            .value())
                    .isEqualTo(1);
            assertThatThrownBy(() -> usual.execute(
                            IdempotencyKey.of("legacy", "a"), Fingerprint.ofString("other"), Integer.class, () -> 3))
                    .isInstanceOf(PayloadMismatchException.class);
            shortLived.execute(IdempotencyKey.of("legacy", "old"), Fingerprint.none(), Integer.class, () -> 1);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> store.find(IdempotencyKey.of("legacy", "old")).isEmpty());
            assertThat(store.purgeExpired(10)).isEqualTo(1);
            assertThat(store.find(IdempotencyKey.of("legacy", "a"))).isPresent();
        }
    }

    /**
     * MySQL/MariaDB: the shipped table stores the fingerprint as its 32 bytes; a table of the
     * previous layout (purge column, hex fingerprint) keeps working with either.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    @ExpectedWarnings("the store warns that the hex-fingerprint table has an earlier version's layout")
    void mariaDbStoresTheFingerprintAsBytesAndStillReadsAHexTable(boolean shipped) throws SQLException {
        try (HikariDataSource ds = TestDatabases.pool(Db.MARIADB, 4)) {
            String table = shipped ? "app_idem_binfp" : "app_idem_hexfp";
            drop(ds, table);
            if (!shipped) {
                try (Connection c = ds.getConnection();
                        Statement st = c.createStatement()) {
                    st.execute("CREATE TABLE " + table + " (scope VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin"
                            + " NOT NULL, idem_key VARBINARY(1020) NOT NULL, status CHAR(1) CHARACTER SET ascii"
                            + " COLLATE ascii_bin NOT NULL, fingerprint VARCHAR(64) CHARACTER SET ascii COLLATE"
                            + " ascii_bin NOT NULL, owner VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,"
                            + " payload LONGBLOB NULL, expires_at DATETIME(6) NOT NULL, purge_after DATETIME(6)"
                            + " NOT NULL, PRIMARY KEY (scope, idem_key), KEY " + table + "_purge (purge_after))");
                }
            }
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                    .tableName(table)
                    .createSchemaIfMissing(true)
                    .build();
            Idempotency idem = Idempotency.of(store);
            Fingerprint fp = Fingerprint.ofString("{\"amount\":1}");
            IdempotencyKey key = IdempotencyKey.of("fp", "k");
            IdempotencyKey none = IdempotencyKey.of("fp", "none");

            assertThat(idem.execute(key, fp, Integer.class, () -> 1).isReplay()).isFalse();
            assertThat(idem.execute(key, fp, Integer.class, () -> 2).value()).isEqualTo(1);
            assertThatThrownBy(() -> idem.execute(key, Fingerprint.ofString("other"), Integer.class, () -> 3))
                    .isInstanceOf(PayloadMismatchException.class);
            assertThat(idem.execute(none, Fingerprint.none(), Integer.class, () -> 4)
                            .isReplay())
                    .isFalse();
            assertThat(idem.execute(none, fp, Integer.class, () -> 5).value()).isEqualTo(4);
            assertThat(store.find(key).orElseThrow().fingerprint()).isEqualTo(fp);

            try (Connection c = ds.getConnection();
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery(
                            "SELECT LENGTH(fingerprint) FROM " + table + " WHERE scope = 'fp' ORDER BY idem_key")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(shipped ? 32 : 64); // "k"
                rs.next();
                assertThat(rs.getInt(1)).isZero(); // "none"
            }
        }
    }

    private static void drop(DataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    /** Rows of {@code table} matching {@code condition} followed by the database's current time. */
    private static int rows(DataSource ds, Db db, String table, String conditionBeforeNow) throws SQLException {
        String now =
                switch (db) {
                    case POSTGRESQL -> "clock_timestamp()";
                    case MARIADB -> "UTC_TIMESTAMP(6)";
                    case H2 -> "CURRENT_TIMESTAMP";
                };
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE " + conditionBeforeNow + now)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static String purgeAfter(DataSource ds, String key) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT purge_after FROM app_idem_hot WHERE scope = 'hot' AND idem_key = '" + key + "'")) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
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

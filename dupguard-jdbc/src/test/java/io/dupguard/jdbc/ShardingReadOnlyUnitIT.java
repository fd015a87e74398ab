package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.ReadOnlyStoreException;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import org.junit.jupiter.api.Test;

/**
 * Through ShardingSphere-JDBC a statement without a table reaches one storage unit only, so the
 * read-only check asks every unit's server: with the MariaDB replica of {@code scripts/services}
 * (3317, replicating 3316) as the second unit, the store is refused before its first write — also
 * for a key whose row lives on the writable first unit — naming the unit.
 */
class ShardingReadOnlyUnitIT {
    private static final String PRIMARY = "jdbc:mariadb://127.0.0.1:3316/test";
    private static final String REPLICA = "jdbc:mariadb://127.0.0.1:3317/test";
    private static final String TABLE = "dupguard_sharded_ro_idem";

    private static final String YAML =
            """
            databaseName: dupguard_ro
            mode:
              type: Standalone
            dataSources:
              writable:
                dataSourceClassName: com.zaxxer.hikari.HikariDataSource
                driverClassName: org.mariadb.jdbc.Driver
                jdbcUrl: %s
                username: root
                password: ''
                maximumPoolSize: 4
              replica:
                dataSourceClassName: com.zaxxer.hikari.HikariDataSource
                driverClassName: org.mariadb.jdbc.Driver
                jdbcUrl: %s
                username: root
                password: ''
                maximumPoolSize: 4
            rules:
            - !SHARDING
              tables:
                %s:
                  actualDataNodes: ${['writable','replica']}.%s
                  databaseStrategy:
                    standard:
                      shardingColumn: idem_key
                      shardingAlgorithmName: by-key
              shardingAlgorithms:
                by-key:
                  type: INLINE
                  props:
                    algorithm-expression: '${(idem_key instanceof byte[] ? new String(idem_key, "UTF-8") : idem_key).startsWith("w") ? "writable" : "replica"}'
            """
                    .formatted(PRIMARY, REPLICA, TABLE, TABLE);

    @Test
    void aReadOnlyStorageUnitIsRefusedBeforeAnyWriteAndNamed() throws Exception {
        // The table on the primary, replicated to the replica; the store through ShardingSphere
        // does not create it.
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(PRIMARY);
        config.setUsername("root");
        config.setMaximumPoolSize(2);
        try (HikariDataSource primary = new HikariDataSource(config)) {
            JdbcIdempotencyStore.builder(primary)
                    .tableName(TABLE)
                    .createSchemaIfMissing(true)
                    .build()
                    .find(IdempotencyKey.of("probe", "w-probe"));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> tableExists(REPLICA));

        DataSource sharded =
                YamlShardingSphereDataSourceFactory.createDataSource(YAML.getBytes(StandardCharsets.UTF_8));
        try {
            IdempotencyStore store = JdbcIdempotencyStore.builder(sharded)
                    .tableName(TABLE)
                    .createSchemaIfMissing(false)
                    .build();
            assertThatThrownBy(() -> store.find(IdempotencyKey.of("ro", "w-on-the-writable-unit")))
                    .isInstanceOf(ReadOnlyStoreException.class)
                    .hasMessageContaining("storage unit replica");
        } finally {
            ((AutoCloseable) sharded).close();
        }
    }

    private static boolean tableExists(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "root", "");
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM information_schema.tables"
                        + " WHERE table_schema = DATABASE() AND table_name = '" + TABLE + "'")) {
            rs.next();
            return rs.getInt(1) == 1;
        }
    }

    @Test
    void theCheckReadsEveryUnit() throws Exception {
        DataSource sharded =
                YamlShardingSphereDataSourceFactory.createDataSource(YAML.getBytes(StandardCharsets.UTF_8));
        try (Connection c = sharded.getConnection()) {
            assertThat(ShardingProxy.is(c)).isTrue();
            assertThat(ShardingProxy.storageUnits(c)).containsOnlyKeys("writable", "replica");
        } finally {
            ((AutoCloseable) sharded).close();
        }
    }
}

package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.retry.UnknownTaskException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import org.junit.jupiter.api.Test;

/**
 * Through ShardingSphere-JDBC a retry store whose shards hand out the same task ids is refused
 * before its first statement, naming the setting: {@code cancel} and {@code unblock} by id carry
 * no shard key and would change every shard's task with that id. With the settings, an unknown id
 * is just unknown.
 */
class ShardingRetryIdsIT {
    private static final String OWN_TABLE = "retry_ids_unset";

    private static DataSource sharded(Db engine, String yaml) throws Exception {
        ShardedDatabases.dataSource(engine); // the shards' schema
        return YamlShardingSphereDataSourceFactory.createDataSource(yaml.getBytes(StandardCharsets.UTF_8));
    }

    private static String yaml(Db engine) {
        return new String(ShardedDatabases.yamlBytes(engine), StandardCharsets.UTF_8);
    }

    @Test
    void mariaDbShardsWithoutTheIdSettingsAreRefusedByCancelAndUnblock() throws Exception {
        // The YAML without the pools' auto_increment settings: both shards hand out 1, 2, 3, …
        DataSource ds = sharded(Db.MARIADB, yaml(Db.MARIADB).replaceAll("(?m)^\\s*connectionInitSql:.*$", ""));
        try {
            JdbcRetryStore store =
                    JdbcRetryStore.builder(ds).listenForNotifications(false).build();
            assertThatThrownBy(() -> store.cancel(7))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("auto_increment_increment = 1")
                    .hasMessageContaining("connectionInitSql SET SESSION auto_increment_increment = 2");
            JdbcRetryStore again =
                    JdbcRetryStore.builder(ds).listenForNotifications(false).build();
            assertThatThrownBy(() -> again.unblock(7))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("auto_increment_increment");
        } finally {
            ((AutoCloseable) ds).close();
        }
        JdbcRetryStore configured = JdbcRetryStore.builder(ShardedDatabases.dataSource(Db.MARIADB))
                .listenForNotifications(false)
                .build();
        assertThatThrownBy(() -> configured.cancel(Long.MAX_VALUE)).isInstanceOf(UnknownTaskException.class);
    }

    @Test
    void postgresShardsWithoutTheIdSettingsAreRefusedByCancelAndUnblock() throws Exception {
        String yaml = yaml(Db.POSTGRESQL);
        // A retry table of this test's own, sharded like retry_stress, created with the plain DDL (increment 1)
        int rule = yaml.indexOf("    retry_stress:");
        int end = yaml.indexOf("\n  shardingAlgorithms:");
        yaml = yaml.substring(0, end)
                + "\n" + yaml.substring(rule, end).replace("retry_stress", OWN_TABLE)
                + yaml.substring(end);
        for (String url : ShardedDatabases.shardUrls(ShardedDatabases.yamlBytes(Db.POSTGRESQL))) {
            try (Connection c = ShardedDatabases.connect(Db.POSTGRESQL, url);
                    Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + OWN_TABLE);
                for (String ddl : SchemaInitializer.statements(SqlDialect.POSTGRESQL)) {
                    if (ddl.contains(JdbcRetryStore.DEFAULT_TABLE)) {
                        st.execute(ddl.replace(JdbcRetryStore.DEFAULT_TABLE, OWN_TABLE));
                    }
                }
            }
        }
        DataSource ds = sharded(Db.POSTGRESQL, yaml);
        try {
            JdbcRetryStore store = JdbcRetryStore.builder(ds)
                    .tableName(OWN_TABLE)
                    .listenForNotifications(false)
                    .build();
            assertThatThrownBy(() -> store.unblock(7))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("increment 1")
                    .hasMessageContaining("ALTER TABLE " + OWN_TABLE + " ALTER COLUMN id SET INCREMENT BY 2");
            JdbcRetryStore again = JdbcRetryStore.builder(ds)
                    .tableName(OWN_TABLE)
                    .listenForNotifications(false)
                    .build();
            assertThatThrownBy(() -> again.cancel(7)).isInstanceOf(IllegalStateException.class);
        } finally {
            ((AutoCloseable) ds).close();
        }
        JdbcRetryStore configured = JdbcRetryStore.builder(ShardedDatabases.dataSource(Db.POSTGRESQL))
                .listenForNotifications(false)
                .build();
        assertThat(configured.unblockAll("no-such-type")).isZero();
        assertThatThrownBy(() -> configured.cancel(Long.MAX_VALUE)).isInstanceOf(UnknownTaskException.class);
    }
}

package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.ReadOnlyStoreException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jdbc.TestDatabases.Db;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import org.junit.jupiter.api.Test;

/**
 * Through ShardingSphere-JDBC a statement without a table reaches one data source, so the
 * read-only check and the Galera check ask every actual data source: a store whose keys all land
 * on the writable shard is still refused, naming the shard that is not.
 */
class ShardingReadOnlyShardIT {

    /** The engine's YAML with shard1's URL replaced by {@code url}. */
    private static DataSource withShard1(Db engine, String url) throws Exception {
        String yaml = new String(ShardedDatabases.yamlBytes(engine), StandardCharsets.UTF_8);
        String shard1 =
                ShardedDatabases.shardUrls(ShardedDatabases.yamlBytes(engine)).get(1);
        ShardedDatabases.dataSource(engine); // the shards' schema
        return YamlShardingSphereDataSourceFactory.createDataSource(
                yaml.replace(shard1, url).getBytes(StandardCharsets.UTF_8));
    }

    private static void claimOnShard0(DataSource sharded) throws Exception {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(sharded).build();
        store.claim(
                IdempotencyKey.of("ro-shard", ShardedDatabases.keyOnShard("k", 0)),
                Fingerprint.none(),
                "owner",
                Duration.ofSeconds(30));
    }

    @Test
    void aReadOnlyShardIsRefusedByName() throws Exception {
        // shard1's sessions are read-only (a session option of this test's own pool, not a server setting)
        DataSource sharded = withShard1(
                Db.POSTGRESQL,
                "jdbc:postgresql://127.0.0.1:5432/dupguard_shard1?options=-c%20default_transaction_read_only=on");
        try {
            assertThatThrownBy(() -> claimOnShard0(sharded))
                    .isInstanceOf(ReadOnlyStoreException.class)
                    .hasMessageContaining("ShardingSphere data source 'shard1'")
                    .hasMessageContaining("transaction_read_only = on");
        } finally {
            ((AutoCloseable) sharded).close();
        }
    }

    @Test
    void aGaleraShardWithoutSyncWaitIsRefusedByName() throws Exception {
        // shard1 on a Galera node, its session without wsrep_sync_wait
        DataSource sharded = withShard1(Db.MARIADB, "jdbc:mariadb://127.0.0.1:3326/test");
        try {
            assertThatThrownBy(() -> claimOnShard0(sharded))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("ShardingSphere data source 'shard1'")
                    .hasMessageContaining("wsrep_sync_wait");
        } finally {
            ((AutoCloseable) sharded).close();
        }
    }
}

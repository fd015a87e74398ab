package io.dupguard.jdbc;

import io.dupguard.jdbc.TestDatabases.Db;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;

/**
 * ShardingSphere-JDBC data sources over the two shard databases of an engine ({@code
 * dupguard_shard0}, {@code dupguard_shard1}; scripts/services creates them), built from the YAML
 * that docs/scaling-sharding.md shows ({@code sharding/mariadb.yaml}, {@code sharding/postgresql.yaml} on
 * the test class path). One per engine and JVM: building one loads metadata from both shards, and
 * its own pools are the connections of every "machine" of the tests.
 */
final class ShardedDatabases {
    private static final Map<Db, DataSource> SHARDED = new EnumMap<>(Db.class);
    private static final Pattern JDBC_URL = Pattern.compile("(?m)^\\s*jdbcUrl:\\s*(\\S+)\\s*$");

    /** The retry log suite's own task table, sharded by task key as dupguard's (AbstractJdbcRetryLogIT). */
    static final String RETRY_LOG_TABLE = AbstractJdbcRetryLogIT.TABLE;

    /**
     * The contract suites' business tables, on shard0 (the YAML's SINGLE rule): ShardingSphere
     * learns a table's node when it loads the metadata, so they exist before it is built.
     */
    private static final List<String> APPLICATION_TABLES = List.of(
            TestOrders.CREATE_TABLE,
            JdbcTransactionalIdempotencyIT.CREATE_UNIQUE_ORDERS,
            FenceIT.CREATE_ACCOUNTS,
            AbstractJdbcRetryLogIT.CREATE_EFFECTS);

    private ShardedDatabases() {}

    /** The YAML resource of an engine's sharding rules. */
    static String yaml(Db engine) {
        return switch (engine) {
            case POSTGRESQL -> "/sharding/postgresql.yaml";
            case MARIADB -> "/sharding/mariadb.yaml";
            case H2 -> throw new IllegalArgumentException("no sharded H2");
        };
    }

    /** The engine's ShardingSphere data source, shared by the JVM; never closed before it exits. */
    static synchronized DataSource dataSource(Db engine) {
        return SHARDED.computeIfAbsent(engine, ShardedDatabases::create);
    }

    /**
     * A ShardingSphere data source of its own over the engine's shards, for a test whose calls may
     * leave a physical connection unusable (a result ShardingSphere does not read to its end); the
     * caller closes it ({@link AutoCloseable}). The shards' tables are those of {@link #dataSource}.
     */
    static DataSource ownDataSource(Db engine) throws SQLException {
        dataSource(engine);
        try {
            return YamlShardingSphereDataSourceFactory.createDataSource(yamlBytes(engine));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The engine's YAML as the tests load it. */
    static byte[] yamlBytes(Db engine) {
        try (InputStream in = ShardedDatabases.class.getResourceAsStream(yaml(engine))) {
            if (in == null) {
                throw new IllegalStateException(yaml(engine) + " is not on the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static DataSource create(Db engine) {
        try {
            byte[] yaml = yamlBytes(engine);
            List<String> urls = shardUrls(yaml);
            for (int i = 0; i < urls.size(); i++) {
                createSchema(engine, urls.get(i), i, urls.size());
            }
            return YamlShardingSphereDataSourceFactory.createDataSource(yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "ShardingSphere over " + engine + " (" + yaml(engine) + "): are dupguard_shard0 and"
                            + " dupguard_shard1 there? scripts/services creates them",
                    e);
        }
    }

    /** A connection of its own to one shard database ({@code url} as in the YAML), past ShardingSphere. */
    static Connection connect(Db engine, String url) throws SQLException {
        return DriverManager.getConnection(url, engine == Db.POSTGRESQL ? "postgres" : "root", "");
    }

    /** The shard of {@code key} by the YAML's algorithm: its UTF-8 bytes' {@code Arrays.hashCode}, mod shards. */
    static int shardOf(String key, int shards) {
        return Math.floorMod(java.util.Arrays.hashCode(key.getBytes(StandardCharsets.UTF_8)), shards);
    }

    /** {@code prefix} and the first number that puts the key on {@code shard} of two. */
    static String keyOnShard(String prefix, int shard) {
        for (int i = 0; ; i++) {
            if (shardOf(prefix + i, 2) == shard) {
                return prefix + i;
            }
        }
    }

    /** The {@code jdbcUrl} of every data source in the YAML, in order. */
    static List<String> shardUrls(byte[] yaml) {
        List<String> urls = new ArrayList<>();
        Matcher m = JDBC_URL.matcher(new String(yaml, StandardCharsets.UTF_8));
        while (m.find()) {
            urls.add(m.group(1));
        }
        return urls;
    }

    /**
     * dupguard's DDL on one shard, as docs/scaling-sharding.md says to: a store does not create its table
     * through ShardingSphere.
     */
    private static void createSchema(Db engine, String url, int shard, int shards) throws SQLException {
        SqlDialect dialect = engine == Db.POSTGRESQL ? SqlDialect.POSTGRESQL : SqlDialect.MYSQL;
        try (Connection c = connect(engine, url);
                Statement st = c.createStatement()) {
            for (String ddl : SchemaInitializer.statements(dialect)) {
                st.execute(ddl);
                if (ddl.contains(JdbcRetryStore.DEFAULT_TABLE)) {
                    st.execute(ddl.replace(JdbcRetryStore.DEFAULT_TABLE, RETRY_LOG_TABLE));
                }
            }
            if (engine == Db.POSTGRESQL) {
                // Retry task ids unique across shards: shard i hands out i + 1, i + 1 + shards, …
                // (MariaDB: auto_increment_increment/offset in the YAML's connectionInitSql).
                for (String table : List.of(JdbcRetryStore.DEFAULT_TABLE, RETRY_LOG_TABLE)) {
                    st.execute("ALTER TABLE " + table + " ALTER COLUMN id SET INCREMENT BY " + shards);
                    st.execute("SELECT setval(pg_get_serial_sequence('" + table + "', 'id'),"
                            + " ((GREATEST((SELECT COALESCE(MAX(id), 0) FROM " + table + "),"
                            + " (SELECT last_value FROM pg_sequences WHERE sequencename = '"
                            + table + "_id_seq')) / " + shards + ") + 1) * " + shards + " + "
                            + (shard + 1)
                            + ", false)");
                }
            }
            for (String ddl : APPLICATION_TABLES) {
                if (shard == 0) {
                    st.execute(ddl);
                }
            }
        }
    }
}

package io.dupguard.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Pools on the real test servers (URLs from system properties set by the build; scripts/services
 * starts the servers). A server that cannot be reached fails the test; nothing is skipped.
 */
final class TestDatabases {
    private static final AtomicInteger H2_COUNTER = new AtomicInteger();

    private TestDatabases() {}

    enum Db {
        H2,
        POSTGRESQL,
        MARIADB
    }

    static String url(Db db) {
        return switch (db) {
            case H2 -> "jdbc:h2:mem:dupguard-test;DB_CLOSE_DELAY=-1";
            case POSTGRESQL ->
                System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
            case MARIADB -> System.getProperty("dupguard.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");
        };
    }

    static HikariDataSource pool(Db db, int size) {
        return pool(db, size, true);
    }

    /** A pool whose connections come with {@code autoCommit} as given. */
    static HikariDataSource pool(Db db, int size, boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setAutoCommit(autoCommit);
        config.setJdbcUrl(url(db));
        config.setMaximumPoolSize(size);
        config.setPoolName("test-" + db + "-" + H2_COUNTER.incrementAndGet());
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    /** Closes {@code ds} if it is a pool of its own (a shared ShardingSphere data source stays open). */
    static void close(DataSource ds) {
        if (ds instanceof HikariDataSource pool) {
            pool.close();
        }
    }

    /** A pool pointing at a port where nothing listens; creating it succeeds, using it fails fast. */
    static HikariDataSource unreachable(Db db) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(
                switch (db) {
                    case H2 -> "jdbc:h2:tcp://127.0.0.1:1/nowhere";
                    case POSTGRESQL -> "jdbc:postgresql://127.0.0.1:1/test?user=postgres&connectTimeout=1";
                    case MARIADB -> "jdbc:mariadb://127.0.0.1:1/test?user=root&connectTimeout=1000";
                });
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(250);
        config.setMaximumPoolSize(1);
        return new HikariDataSource(config);
    }

    static JdbcIdempotencyStore store(DataSource ds) {
        return JdbcIdempotencyStore.builder(ds).createSchemaIfMissing(true).build();
    }

    static JdbcLockProvider locks(DataSource ds) {
        return JdbcLockProvider.builder(ds).createSchemaIfMissing(true).build();
    }

    static JdbcRetryStore retries(DataSource ds) {
        return JdbcRetryStore.builder(ds).createSchemaIfMissing(true).build();
    }

    /** The first column of the first row of {@code query} (a {@code COUNT(*)}), with string parameters. */
    static int count(DataSource ds, String query, String... params) throws java.sql.SQLException {
        try (java.sql.Connection c = ds.getConnection();
                java.sql.PreparedStatement ps = c.prepareStatement(query)) {
            for (int i = 0; i < params.length; i++) {
                ps.setString(i + 1, params[i]);
            }
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}

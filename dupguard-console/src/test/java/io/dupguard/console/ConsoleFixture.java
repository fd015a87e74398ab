package io.dupguard.console;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.JdbcRetryStore;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Stores and a console on tables of their own (a random prefix, dropped at close), so the tests share
 * the loopback servers with every other test run.
 */
final class ConsoleFixture implements AutoCloseable {
    final HikariDataSource ds;
    final String prefix = "cit"
            + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36).substring(0, 6) + "_";
    final JdbcRetryStore retries;
    final JdbcIdempotencyStore keys;
    final JdbcLockProvider locks;
    final Console console;

    ConsoleFixture(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(6);
        ds = new HikariDataSource(config);
        retries = JdbcRetryStore.builder(ds)
                .tableName(prefix + "retry")
                .createSchemaIfMissing(true)
                .build();
        keys = JdbcIdempotencyStore.builder(ds)
                .tableName(prefix + "idem")
                .createSchemaIfMissing(true)
                .build();
        locks = JdbcLockProvider.builder(ds)
                .tableName(prefix + "locks")
                .createSchemaIfMissing(true)
                .build();
        retries.stats(); // creates the table
        keys.find(io.dupguard.idempotency.IdempotencyKey.of("s", "k"));
        locks.tryAcquire("warm-up").ifPresent(io.dupguard.lock.Lease::close);
        console = Console.builder(ds)
                .tables(Map.of(
                        "retry", prefix + "retry",
                        "idempotency", prefix + "idem",
                        "processed", prefix + "processed",
                        "locks", prefix + "locks",
                        "audit", prefix + "audit"))
                .build();
    }

    void sql(String statement) throws Exception {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute(statement.replace("$", prefix));
        }
    }

    @Override
    public void close() throws Exception {
        for (String t : new String[] {"retry", "idem", "processed", "locks", "audit"}) {
            sql("DROP TABLE IF EXISTS $" + t);
        }
        ds.close();
    }
}

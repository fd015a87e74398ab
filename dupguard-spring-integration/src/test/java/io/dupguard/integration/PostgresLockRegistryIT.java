package io.dupguard.integration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.JdbcLockProvider;

/** The registry suite on dupguard's JDBC locks in PostgreSQL; each node its own pool. */
class PostgresLockRegistryIT extends AbstractLockRegistryContractIT {
    @Override
    protected Node newNode() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(2_000);
        HikariDataSource pool = new HikariDataSource(config);
        return new Node(
                JdbcLockProvider.builder(pool).createSchemaIfMissing(true).build(), pool::close);
    }

    @Override
    protected void close(Node node) {
        node.kill().run();
    }
}

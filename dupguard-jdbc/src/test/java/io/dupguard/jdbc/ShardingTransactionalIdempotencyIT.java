package io.dupguard.jdbc;

import io.dupguard.jdbc.TestDatabases.Servers;
import java.util.stream.Stream;

/**
 * The transactional mode through ShardingSphere-JDBC over two MariaDB and over two PostgreSQL
 * databases: the key's row on its shard, the caller's order rows in a single table (shard0), one
 * logical transaction over both (docs/scaling-sharding.md, "What dupguard guarantees through ShardingSphere").
 */
class ShardingTransactionalIdempotencyIT extends JdbcTransactionalIdempotencyIT {
    @Override
    Stream<Servers> servers() {
        return Servers.shardings();
    }
}

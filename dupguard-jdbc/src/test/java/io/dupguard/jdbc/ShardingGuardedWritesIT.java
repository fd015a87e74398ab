package io.dupguard.jdbc;

import io.dupguard.jdbc.TestDatabases.Servers;
import java.util.stream.Stream;

/**
 * Transitions, CAS, the unfinished-task guard and create-once through ShardingSphere-JDBC over two
 * MariaDB and over two PostgreSQL databases: the business tables are single tables (shard0), the
 * guard rows are sharded by guard key.
 */
class ShardingGuardedWritesIT extends GuardedWritesIT {
    @Override
    Stream<Servers> servers() {
        return singleServers();
    }

    @Override
    Stream<Servers> singleServers() {
        return Servers.shardings();
    }
}

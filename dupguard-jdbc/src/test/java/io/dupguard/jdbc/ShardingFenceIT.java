package io.dupguard.jdbc;

import io.dupguard.jdbc.TestDatabases.Servers;
import java.util.stream.Stream;

/**
 * Fencing tokens through ShardingSphere-JDBC over two MariaDB and over two PostgreSQL databases:
 * the lock row (its fence counter) on its name's shard, the fenced account row in a single table.
 */
class ShardingFenceIT extends FenceIT {
    @Override
    Stream<Servers> servers() {
        return Servers.shardings();
    }
}

package io.dupguard.jdbc;

import io.dupguard.jdbc.TestDatabases.Db;

/** The idempotency store contract (with batch claims) through ShardingSphere-JDBC over two databases. */
abstract class AbstractShardedIdempotencyStoreIT extends AbstractJdbcIdempotencyStoreIT {
    AbstractShardedIdempotencyStoreIT(Db engine) {
        super(engine, size -> ShardedDatabases.dataSource(engine), TestDatabases::store);
    }

    /** Through ShardingSphere a batch claims key by key: each key's statement goes to its shard. */
    @Override
    protected int claimAllRoundTrips(int keys) {
        return keys;
    }
}

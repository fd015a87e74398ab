package io.dupguard.jdbc;

/** The idempotency store contract (with batch claims) through ShardingSphere-JDBC over two Postgres databases. */
class ShardingPostgresIdempotencyStoreIT extends AbstractShardedIdempotencyStoreIT {
    ShardingPostgresIdempotencyStoreIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }

    /**
     * Key by key on PostgreSQL: one statement for a fresh key, two for an existing one (the insert
     * that does nothing, then the read); the contract's mixed batch of three has two existing keys.
     */
    @Override
    protected int claimAllRoundTrips(int keys) {
        return keys == 3 ? keys + 2 : keys;
    }
}

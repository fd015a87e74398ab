package io.dupguard.jdbc;

class PostgresIdempotencyStoreIT extends AbstractJdbcIdempotencyStoreIT {
    PostgresIdempotencyStoreIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }

    /**
     * One statement (the insert) for a batch of new keys; the contract's mixed batch of three has
     * two recorded keys, whose rows one more statement reads.
     */
    @Override
    protected int claimAllRoundTrips(int keys) {
        return keys == 3 ? 2 : 1;
    }
}

package io.dupguard.jdbc;

/** The contract with each machine on its own node of the Galera cluster. */
class GaleraIdempotencyStoreIT extends AbstractJdbcIdempotencyStoreIT {
    GaleraIdempotencyStoreIT() {
        super(TestDatabases.Servers.galera());
    }

    /** The insert, then a read: {@code INSERT … RETURNING} is not used on Galera ({@link IdempotencySql}). */
    @Override
    protected int claimAllRoundTrips(int keys) {
        return 2;
    }
}

package io.dupguard.jdbc;

/** The contract with each machine on its own node of the Galera cluster. */
class GaleraRetryStoreIT extends AbstractJdbcRetryStoreIT {
    GaleraRetryStoreIT() {
        super(TestDatabases.Servers.galera());
    }
}

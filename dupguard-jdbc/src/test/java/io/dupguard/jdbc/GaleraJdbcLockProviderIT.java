package io.dupguard.jdbc;

/** The contract with each machine on its own node of the Galera cluster. */
class GaleraJdbcLockProviderIT extends AbstractJdbcLockProviderIT {
    GaleraJdbcLockProviderIT() {
        super(TestDatabases.Servers.galera());
    }
}

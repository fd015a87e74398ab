package io.dupguard.jdbc;

/** The contract with each machine on its own node of the Galera cluster. */
class GaleraSubmissionIT extends AbstractJdbcSubmissionIT {
    GaleraSubmissionIT() {
        super(TestDatabases.Servers.galera());
    }
}

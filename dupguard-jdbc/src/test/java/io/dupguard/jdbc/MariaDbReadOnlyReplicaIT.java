package io.dupguard.jdbc;

import org.junit.jupiter.api.Test;

/**
 * K7 on the MariaDB primary and its GTID binlog replica ({@code scripts/services}: 3316 and 3317, or
 * {@code -Ddupguard.mariadb.replicas=primary-host:port,replica-host:port}). The refusals run as root,
 * whom {@code read_only} does not stop; the write error comes from {@code dupguard}, whom it does.
 */
class MariaDbReadOnlyReplicaIT extends AbstractReadOnlyReplicaIT {
    private static final String[] HOSTS = System.getProperty(
                    "dupguard.mariadb.replicas", "127.0.0.1:3316,127.0.0.1:3317")
            .split(",");

    MariaDbReadOnlyReplicaIT() {
        super(url("", HOSTS[0], "root"), url("", HOSTS[1], "root"), url("", HOSTS[1], "dupguard"), "@@read_only = 1");
    }

    private static String url(String mode, String hosts, String user) {
        return "jdbc:mariadb:" + mode + "//" + hosts + "/test?useServerPrepStmts=true&user=" + user;
    }

    @Override
    String readOnlySession() {
        return "SET SESSION TRANSACTION READ ONLY";
    }

    @Override
    String readWriteSession() {
        return "SET SESSION TRANSACTION READ WRITE";
    }

    @Test
    void aReplicationUrlWritesToThePrimaryItNamesFirst() {
        assertClaimsOn(url("replication:", HOSTS[0] + "," + HOSTS[1], "root"));
    }

    @Test
    void aSequentialUrlThatNamesTheReplicaFirstIsRefused() {
        assertRefusedOn(url("sequential:", HOSTS[1] + "," + HOSTS[0], "root"));
    }
}

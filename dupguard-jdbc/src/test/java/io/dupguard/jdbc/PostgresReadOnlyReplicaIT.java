package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * K7 on the PostgreSQL primary and its streaming hot standby ({@code scripts/services}: 5442 and
 * 5443, or {@code -Ddupguard.pg.replicas=primary-host:port,standby-host:port}).
 */
class PostgresReadOnlyReplicaIT extends AbstractReadOnlyReplicaIT {
    private static final String[] HOSTS = System.getProperty("dupguard.pg.replicas", "127.0.0.1:5442,127.0.0.1:5443")
            .split(",");

    PostgresReadOnlyReplicaIT() {
        super(url(HOSTS[0], ""), url(HOSTS[1], ""), url(HOSTS[1], ""), "pg_is_in_recovery() = true");
    }

    private static String url(String hosts, String options) {
        return "jdbc:postgresql://" + hosts + "/test?user=postgres" + options;
    }

    @Override
    String readOnlySession() {
        return "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY";
    }

    @Override
    String readWriteSession() {
        return "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE";
    }

    @Test
    void aMultiHostUrlWithTargetServerTypePrimaryLandsOnThePrimaryWhateverTheOrder() throws SQLException {
        for (String hosts : new String[] {HOSTS[1] + "," + HOSTS[0], HOSTS[0] + "," + HOSTS[1]}) {
            String url = url(hosts, "&targetServerType=primary");
            assertClaimsOn(url);
            try (HikariDataSource ds = pool(url)) {
                assertThat(count(ds, "SELECT inet_server_port()"))
                        .isEqualTo(Long.parseLong(HOSTS[0].substring(HOSTS[0].lastIndexOf(':') + 1)));
            }
        }
    }

    @Test
    void aMultiHostUrlWithoutTargetServerTypeMayReachTheStandbyAndIsRefused() {
        assertRefusedOn(url(HOSTS[1] + "," + HOSTS[0], ""));
    }
}

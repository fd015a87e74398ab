package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 002 §3 (SPEC K7) on a real streaming standby: the lab pauses WAL replay on the standby of
 * {@code scripts/services} (127.0.0.1:5443, primary 5442) for each run and resumes it after. The
 * naive {@code replica-check} charges again whatever the standby has not replayed; dupguard, on the
 * primary only, holds. A server that cannot be reached fails the test.
 */
class StormReplicaLagIT {
    static final String PRIMARY =
            System.getProperty("dupguard.pg.primary.url", "jdbc:postgresql://127.0.0.1:5442/test?user=postgres");
    static final String STANDBY =
            System.getProperty("dupguard.pg.standby.url", "jdbc:postgresql://127.0.0.1:5443/test?user=postgres");

    @TempDir
    Path dir;

    @Test
    void aDuplicateCheckOnALaggingStandbyChargesAgainWhileDupguardHolds() throws Exception {
        Path json = dir.resolve("replica-lag.json");
        LabCli.Result r = LabCli.run(
                "storm",
                "--workload",
                "payment",
                "--strategy",
                "replica-check,idempotency-jdbc,idempotency-jdbc-tx",
                "--faults",
                "replica-lag",
                "--duration",
                "1s",
                "--clients",
                "16",
                "--jdbc-url",
                PRIMARY,
                "--jdbc-replica-url",
                STANDBY,
                "--json",
                json.toString());
        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();

        List<String> seen = new ArrayList<>();
        for (StormJson.Row each : StormJson.rows(json)) {
            JsonNode row = each.json();
            String where = each.where() + "@replica-lag";
            assertThat(row.get("fault").asText()).as(where).isEqualTo("replica-lag");
            assertThat(row.get("durable").asBoolean()).as(where).isTrue();
            assertThat(row.get("faultWindows").size())
                    .as(where + " fault windows")
                    .isPositive();
            if (each.dupguard()) {
                StormJson.assertHolds(where, row);
            } else {
                assertThat(row.get("duplicateEffects").asLong())
                        .as(where + ": the standby said 'not charged' for charges it had not replayed")
                        .isPositive();
            }
            seen.add(row.get("name").asText());
        }
        assertThat(seen).containsExactly("replica-check", "idempotency-jdbc", "idempotency-jdbc-tx");
        assertThat(r.out()).contains("replica-check @replica-lag");
        try (Connection c = DriverManager.getConnection(STANDBY);
                ResultSet rs = c.createStatement().executeQuery("SELECT pg_is_wal_replay_paused()")) {
            rs.next();
            assertThat(rs.getBoolean(1)).as("replay resumed after the runs").isFalse();
        }
    }
}

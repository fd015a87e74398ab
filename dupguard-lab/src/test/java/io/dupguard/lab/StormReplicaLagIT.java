package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.Map;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Seed 002 §3 (guarantee K7) on a real streaming standby: the lab pauses WAL replay on the standby of
 * {@code scripts/services} (127.0.0.1:5443, primary 5442) for each run and resumes it after. The
 * naive {@code replica-check} charges again whatever the standby has not replayed; dupguard, on the
 * primary only, holds. A quarter of the requests is delivered again after its answer, so even a
 * slow machine sends the naive row enough redeliveries to show the naive failure. A server that
 * cannot be reached fails the test.
 */
@Order(SecondLane.ALONE) // after the main lane's other classes: the second lane is done by then
@ResourceLock(SecondLane.LOCK) // the failover's timing alone: nothing of the second lane meanwhile
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
                "--redelivery-rate",
                "0.25",
                "--jdbc-url",
                PRIMARY,
                "--jdbc-replica-url",
                STANDBY,
                "--json",
                json.toString());
        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();

        Map<String, JsonNode> rows = StormJson.faultedRows(json);
        rows.forEach((where, row) -> {
            assertThat(row.get("durable").asBoolean()).as(where).isTrue();
            if (StormJson.dupguard(row)) {
                StormJson.assertHolds(where, row);
            } else {
                assertThat(row.get("duplicateEffects").asLong())
                        .as(where + ": the standby said 'not charged' for charges it had not replayed")
                        .isPositive();
            }
        });
        assertThat(rows.keySet())
                .containsExactly(
                        "payment/replica-check@replica-lag",
                        "payment/idempotency-jdbc@replica-lag",
                        "payment/idempotency-jdbc-tx@replica-lag");
        assertThat(r.out()).contains("replica-check @replica-lag");
        try (Connection c = DriverManager.getConnection(STANDBY);
                ResultSet rs = c.createStatement().executeQuery("SELECT pg_is_wal_replay_paused()")) {
            rs.next();
            assertThat(rs.getBoolean(1)).as("replay resumed after the runs").isFalse();
        }
    }
}

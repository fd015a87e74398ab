package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL failed over mid-storm on a primary + standby pair the lab starts itself (never the
 * shared 5442/5443 pair): the primary stops as a crash, the standby is promoted, the clients follow
 * through the multi-host URL; for 300 ms before the crash the primary sends no WAL. With
 * asynchronous replication the commits it acknowledged meanwhile are lost ({@code durable:
 * false}); with a synchronous standby, the transactional mode keeps 0 duplicate effects and 0 lost.
 * The PostgreSQL binaries missing fails the test (status 2).
 */
class StormPgFailoverIT {
    @TempDir
    Path dir;

    @Test
    void aSynchronousStandbyKeepsEveryAcknowledgedClaimThroughAFailover() throws Exception {
        Path json = dir.resolve("pg-failover.json");
        LabCli.Result r = LabCli.run(
                "storm",
                "--workload",
                "payment",
                "--strategy",
                "idempotency-jdbc-tx",
                "--faults",
                "pg-failover,pg-failover-sync",
                "--duration",
                "1s",
                "--clients",
                "16",
                "--json",
                json.toString());
        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();

        Map<String, JsonNode> rows = StormJson.faultedRows(json);
        rows.forEach((where, row) -> {
            boolean synchronous = row.get("fault").asText().equals("pg-failover-sync");
            assertThat(row.get("durable").asBoolean())
                    .as(where + ": only a synchronous standby has every acknowledged commit")
                    .isEqualTo(synchronous);
            if (StormJson.dupguard(row) && synchronous) {
                StormJson.assertHolds(where, row);
            }
            if (!synchronous) {
                assertThat(row.get("lost").asLong())
                        .as(where + ": commits acknowledged while the primary held WAL back are gone")
                        .isPositive();
            }
        });
        assertThat(rows.keySet())
                .containsExactly(
                        "payment/idempotency-jdbc-tx@pg-failover", "payment/idempotency-jdbc-tx@pg-failover-sync");
        assertThat(leftRunning()).as("the lab's PostgreSQL servers are stopped").isEmpty();
    }

    /** PostgreSQL servers of a lab pair still running (their data directories are the lab's temporary ones). */
    private static List<String> leftRunning() {
        return ProcessHandle.allProcesses()
                .map(p -> p.info().commandLine().orElse(""))
                .filter(c -> c.contains("postgres -D ") && c.contains("dupguard-lab-pg"))
                .toList();
    }
}

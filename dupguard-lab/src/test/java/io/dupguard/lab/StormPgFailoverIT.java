package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * PostgreSQL failed over mid-storm on a primary + standby pair the lab starts itself (never the
 * shared 5442/5443 pair): the primary stops as a crash, the standby is promoted, the clients follow
 * through the multi-host URL; for 300 ms before the crash the primary sends no WAL. With
 * asynchronous replication the commits it acknowledged meanwhile are lost ({@code durable:
 * false}); with a synchronous standby, the transactional mode keeps 0 duplicate effects and 0 lost.
 * Then the old primary back: rewound and rejoined as the new primary's standby, or restarted as it
 * was — two primaries, and a client whose URL lists the old one first writes to both databases in
 * turn ({@code durable: false}: the operator's fencing limit).
 * The PostgreSQL binaries missing fails the test (status 2).
 */
@Order(SecondLane.ALONE) // after the main lane's other classes: the second lane is done by then
@ResourceLock(SecondLane.LOCK) // the failover's timing alone: nothing of the second lane meanwhile
class StormPgFailoverIT {
    @TempDir
    Path dir;

    @Test
    void aSynchronousStandbyKeepsEveryAcknowledgedClaimThroughAFailover() throws Exception {
        Map<String, JsonNode> rows = storm("pg-failover,pg-failover-sync", "1s");
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
    }

    @Test
    void theRewoundOldPrimaryRejoinsAsAStandbyAndTheClientsKeepWritingToTheNewPrimary() throws Exception {
        // the failover comes in the first half, the rejoin takes up to ~9 s on a loaded machine
        Map<String, JsonNode> rows = storm("pg-failover-rejoin", "25s");

        assertThat(rows.keySet()).containsExactly("payment/idempotency-jdbc-tx@pg-failover-rejoin");
        JsonNode row = rows.get("payment/idempotency-jdbc-tx@pg-failover-rejoin");
        assertThat(row.get("durable").asBoolean())
                .as("asynchronous: what the standby had not received is lost")
                .isFalse();
        assertThat(row.get("requests").asLong()).isPositive();
        long rejoined = row.get("faultWindows").get(0).get("toMillis").asLong();
        long answeredAfter = 0;
        for (JsonNode bucket : row.get("timeline")) {
            answeredAfter += bucket.get("atMillis").asLong() > rejoined
                    ? bucket.get("completed").asLong()
                    : 0;
        }
        assertThat(answeredAfter)
                .as(
                        "requests answered by the new primary after the old one rejoined as its standby (at %d ms)",
                        rejoined)
                .isPositive();
    }

    @Test
    void aSecondPrimarySplitsTheWritesOfAClientWhoseUrlListsItFirst() throws Exception {
        Map<String, JsonNode> rows = storm("pg-failover-second-primary,pg-failover-second-primary-new-first", "3s");

        assertThat(rows.keySet())
                .containsExactly(
                        "payment/idempotency-jdbc-tx@pg-failover-second-primary",
                        "payment/idempotency-jdbc-tx@pg-failover-second-primary-new-first");
        rows.forEach((where, row) -> assertThat(row.get("durable").asBoolean())
                .as(where + ": two primaries (the operator's fencing limit), asynchronous replication")
                .isFalse());
        JsonNode split = rows.get("payment/idempotency-jdbc-tx@pg-failover-second-primary");
        assertThat(split.get("duplicateEffects").asLong() + split.get("lost").asLong())
                .as("what was acknowledged on the new primary is missing on the old one, retries run again there")
                .isPositive();
        assertThat(split.get("ok").asBoolean()).isFalse();
    }

    /**
     * A payment storm of {@code idempotency-jdbc-tx}, 16 clients, under {@code faults}; its rows, each
     * with its fault window. The run is short, and the lab's servers are stopped after it.
     */
    private Map<String, JsonNode> storm(String faults, String duration) throws Exception {
        Path json = dir.resolve("pg-failover.json");
        LabCli.Result r = LabCli.run(
                "storm",
                "--workload",
                "payment",
                "--strategy",
                "idempotency-jdbc-tx",
                "--faults",
                faults,
                "--duration",
                duration,
                "--clients",
                "16",
                "--json",
                json.toString());
        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        assertThat(leftRunning()).as("the lab's PostgreSQL servers are stopped").isEmpty();
        return StormJson.faultedRows(json);
    }

    /** PostgreSQL servers of a lab pair still running (their data directories are the lab's temporary ones). */
    private static List<String> leftRunning() {
        return ProcessHandle.allProcesses()
                .map(p -> p.info().commandLine().orElse(""))
                .filter(c -> c.contains("postgres -D ") && c.contains("dupguard-lab-pg"))
                .toList();
    }
}

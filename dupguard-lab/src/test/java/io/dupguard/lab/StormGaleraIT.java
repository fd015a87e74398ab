package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dupguard.test.ExpectedWarnings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The storm on the Galera cluster of scripts/services, the second application instance on another
 * node, and that node killed (SIGKILL) mid-run: the instance's next connections fail over to node
 * 1, and the transactional mode, which no lease guards, takes every payment once. (The cluster
 * stalls every write for about 4 s until it declares the node dead, longer than the lab's 2 s
 * leases, so lease-guarded strategies are a limit there: docs/scaling.md.) The node is started
 * again and rejoins before the run ends — 20 s or so, a full rsync state transfer after SIGKILL —
 * so the cluster is whole for what runs next; one strategy keeps the test near 30 s.
 */
@Order(SecondLane.ALONE) // after the main lane's other classes: the second lane is done by then
@ResourceLock(SecondLane.LOCK) // the failover's timing alone: nothing of the second lane meanwhile
class StormGaleraIT {
    static final String NODE_1 = "jdbc:mariadb://127.0.0.1:3326/test?user=root&sessionVariables=wsrep_sync_wait=7";
    /** Node 2 first; node 1 once node 2 is gone. */
    static final String NODE_2_THEN_1 =
            "jdbc:mariadb:sequential://127.0.0.1:3327,127.0.0.1:3326/test?user=root&sessionVariables=wsrep_sync_wait=7";

    @TempDir
    Path dir;

    @Test
    @ExpectedWarnings("the pools and the retry log report the connections the killed node took with it")
    void aKilledNodeUnderTheSecondInstanceLosesNothingAndDuplicatesNothing() throws Exception {
        Path json = dir.resolve("galera.json");
        LabCli.Result r = LabCli.run(
                "storm",
                "--workload",
                "payment",
                "--strategy",
                "idempotency-jdbc-tx",
                "--faults",
                "galera-node-kill",
                "--duration",
                "2s",
                "--clients",
                "24",
                "--jdbc-url",
                NODE_1,
                "--jdbc-url-2",
                NODE_2_THEN_1,
                "--json",
                json.toString());

        List<String> rows = new ArrayList<>();
        for (StormJson.Row each : StormJson.rows(json)) {
            JsonNode row = each.json();
            String where = each.where();
            rows.add(where);
            assertThat(row.get("fault").asText()).as(where).isEqualTo("galera-node-kill");
            assertThat(row.get("faultWindows").size()).as(where).isOne();
            assertThat(row.get("durable").asBoolean()).as(where).isTrue();
            StormJson.assertHolds(where, row);
        }
        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        assertThat(rows).containsExactly("payment/idempotency-jdbc-tx");
    }
}

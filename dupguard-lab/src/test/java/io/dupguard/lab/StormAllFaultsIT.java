package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dupguard.test.ExpectedWarnings;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documented {@code storm --faults all} on PostgreSQL + Redis, short and on the dupguard
 * strategies only: every default workload under every fault. The lab's own setup and checks (an order created before it is paid, a form
 * rendered, the retry job, the checker) must survive the faults the lab injects — the storm ran to
 * its end once only if no killed connection met them — and every dupguard row on a durable setting
 * keeps its promise.
 */
class StormAllFaultsIT {
    private static final Set<String> FAULTS =
            Set.of("store-stall", "connection-kill", "redis-restart", "redis-restart-aof", "instance-crash");

    @TempDir
    Path dir;

    @Test
    @ExpectedWarnings("HikariCP and the Redis client log the connections the faults kill and the crashed instance")
    void everyDefaultWorkloadRunsToItsEndUnderEveryFaultAndDupguardHoldsWhereTheSettingIsDurable() throws Exception {
        Path json = dir.resolve("all-faults.json");
        LabCli.stormOnPostgresRedis(
                json,
                "--faults",
                "all",
                "--strategy", // every dupguard strategy of the default workloads: the rows with a promise
                "unique-key-catch,insert-ignore-reread,lock,idempotency,idempotency-memory,idempotency-jdbc,"
                        + "idempotency-jdbc-tx,idempotency-redis,lock-double-check,insert-if-absent,"
                        + "lock-and-transitions,retry-log,token,prepared",
                "--duration",
                "300ms",
                "--clients",
                "8");

        Set<String> faults = new TreeSet<>();
        Set<String> workloads = new TreeSet<>();
        for (StormJson.Row each : StormJson.rows(json)) {
            JsonNode row = each.json();
            String fault = row.get("fault").asText();
            String where = each.where() + " @" + fault;
            assertThat(fault).as(where).isIn(FAULTS);
            assertThat(row.get("requests").asLong()).as(where + " requests").isPositive();
            faults.add(fault);
            workloads.add(each.workload());
            assertThat(each.dupguard()).as(where).isTrue();
            if (row.get("durable").asBoolean()) {
                StormJson.assertHolds(where, row);
            }
        }
        assertThat(faults).containsExactlyInAnyOrderElementsOf(FAULTS);
        assertThat(workloads)
                .containsExactlyInAnyOrder(
                        "account-binding", "payment", "balance-init", "order-payment", "form-submit");
        assertThat(StormJson.read(json).get("ok").asBoolean()).isTrue();
    }
}

package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dupguard.test.ExpectedWarnings;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lab survives the faults it injects, on PostgreSQL + Redis. The documented {@code storm
 * --faults all}, short and on the dupguard strategies only: the lab's own setup and checks (an
 * order created before it is paid, a form rendered, the retry job, the checker) meet every fault —
 * the storm once ended at the first killed connection that met them — and every dupguard row on a
 * durable setting keeps its promise. And the stall locks only the tables the lab created.
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

    /**
     * The stall locks only the lab's own tables. Another client of a shared database holds a lock
     * on a {@code dupguard*} table of its own for the whole run: the stall neither waits for it (and
     * fails on its lock timeout, which once ended the storm) nor stops that client.
     */
    @Test
    void theStallLeavesAnotherClientsDupguardTablesAlone() throws Exception {
        try (Connection other = DriverManager.getConnection(StormPostgresRedisIT.PG);
                Statement s = other.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS dupguard_another_client (id BIGINT PRIMARY KEY)");
            other.setAutoCommit(false);
            s.execute("LOCK TABLE dupguard_another_client IN ACCESS SHARE MODE");

            Path json = dir.resolve("stall.json");
            LabCli.stormOnPostgresRedis(
                    json,
                    "--workload",
                    "payment",
                    "--strategy",
                    "idempotency-jdbc",
                    "--faults",
                    "store-stall",
                    "--duration",
                    "1s",
                    "--clients",
                    "8");

            JsonNode row = StormJson.rows(json).get(0).json();
            assertThat(row.get("faultWindows").size()).as("the stall happened").isOne();
            other.rollback();
            other.setAutoCommit(true);
            s.execute("DROP TABLE dupguard_another_client");
        }
    }
}

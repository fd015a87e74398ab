package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Seed 004 on a Sentinel-managed Redis of the lab's own (master, two replicas, three Sentinels),
 * failed over mid-storm — once by {@code SENTINEL FAILOVER}, once by killing the master with every
 * write waiting for a replica's acknowledgement ({@code replicaAcks(1, …)}) — with the Redis
 * strategies connecting through the Sentinels. Replication stays asynchronous ({@code WAIT} does not
 * make it consistent), so no row is {@code durable}; the fenced lock must still refuse every stale
 * write. The tables live on the
 * PostgreSQL of {@link StormPostgresRedisIT}; {@code redis-server} missing fails the test.
 */
@Order(SecondLane.ALONE) // after the main lane's other classes: the second lane is done by then
@ResourceLock(SecondLane.LOCK) // the failover's timing alone: nothing of the second lane meanwhile
class StormRedisFailoverIT {
    @TempDir
    Path dir;

    @Test
    void theStormRunsThroughBothFailoversAndFencingStillRefusesStaleWrites() throws Exception {
        Path json = dir.resolve("redis-failover.json");
        LabCli.Result r = LabCli.stormOnPostgresRedis(
                json,
                "--workload",
                "payment,lock-backends",
                "--strategy",
                "idempotency-redis,redis-fenced",
                "--faults",
                "redis-failover,redis-failover-kill-acks",
                "--duration",
                "1s",
                "--clients",
                "8");

        Map<String, JsonNode> rows = StormJson.faultedRows(json);
        long refused = 0;
        for (Map.Entry<String, JsonNode> e : rows.entrySet()) {
            String where = e.getKey();
            JsonNode row = e.getValue();
            assertThat(row.get("durable").asBoolean())
                    .as(where + ": asynchronous replication")
                    .isFalse();
            if (where.startsWith("lock-backends/")) {
                JsonNode m = row.get("metrics");
                assertThat(m.get("staleWritesAccepted").asLong()).as(where).isZero();
                refused += m.get("staleWritesRefused").asLong();
            }
        }
        // a killed master can stall the whole short run, leaving no paused holder to write late
        assertThat(refused).as("stale writes the fenced rows refused").isPositive();
        assertThat(rows.keySet())
                .containsExactlyInAnyOrder(
                        "payment/idempotency-redis@redis-failover",
                        "payment/idempotency-redis@redis-failover-kill-acks",
                        "lock-backends/redis-fenced@redis-failover",
                        "lock-backends/redis-fenced@redis-failover-kill-acks");
        assertThat(r.out()).contains("@redis-failover-kill-acks");
    }

    /**
     * The starter's default with Redis (backstop: Redis in front, the JDBC row in the charge's
     * transaction deciding) keeps its promise through every Redis failover, with and without
     * acknowledgements: what Redis forgets, the row that committed with the charge replays.
     */
    @Test
    void theBackstopHoldsThroughEveryRedisFailover() throws Exception {
        Path json = dir.resolve("redis-failover-backstop.json");
        LabCli.stormOnPostgresRedis(
                json,
                "--workload",
                "payment",
                "--strategy",
                "idempotency-redis-backstop",
                "--faults",
                "redis-failover,redis-failover-kill,redis-failover-acks,redis-failover-kill-acks",
                "--duration",
                "1s",
                "--clients",
                "8");

        Map<String, JsonNode> rows = StormJson.faultedRows(json);
        assertThat(rows.keySet())
                .containsExactlyInAnyOrder(
                        "payment/idempotency-redis-backstop@redis-failover",
                        "payment/idempotency-redis-backstop@redis-failover-kill",
                        "payment/idempotency-redis-backstop@redis-failover-acks",
                        "payment/idempotency-redis-backstop@redis-failover-kill-acks");
        for (Map.Entry<String, JsonNode> e : rows.entrySet()) {
            JsonNode row = e.getValue();
            assertThat(row.get("durable").asBoolean()).as(e.getKey()).isTrue();
            assertThat(row.get("duplicateEffects").asLong()).as(e.getKey()).isZero();
            assertThat(row.get("lost").asLong()).as(e.getKey()).isZero();
            assertThat(row.get("requests").asLong()).as(e.getKey()).isPositive();
        }
    }
}

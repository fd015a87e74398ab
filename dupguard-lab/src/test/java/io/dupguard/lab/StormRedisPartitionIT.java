package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code redis-partition}: the payment storm's Redis clients reach a {@code redis-server} of the
 * lab's own through a relay the lab cuts both ways for 3 s (longer than the lab's 2 s lease) and then
 * heals. The backstop (Redis in front, the JDBC row in the charge's transaction deciding) is {@code
 * durable} and keeps 0 duplicate effects and 0 lost; {@code idempotency-redis}, whose charge commits
 * apart from its Redis record, is not, and a duplicate it shows is labelled with the partition's
 * limit. The tables live on the PostgreSQL of {@link StormPostgresRedisIT}; {@code redis-server}
 * missing fails the test.
 */
class StormRedisPartitionIT {
    @TempDir
    Path dir;

    @Test
    void theBackstopHoldsThroughAPartitionLongerThanTheLease() throws Exception {
        Path json = dir.resolve("redis-partition.json");
        LabCli.Result r = LabCli.stormOnPostgresRedis(
                json,
                "--workload",
                "payment",
                "--strategy",
                "idempotency-redis,idempotency-redis-backstop",
                "--faults",
                "redis-partition",
                "--duration",
                "2s",
                "--clients",
                "8");

        Map<String, JsonNode> rows = StormJson.faultedRows(json);
        assertThat(rows.keySet())
                .containsExactly(
                        "payment/idempotency-redis@redis-partition",
                        "payment/idempotency-redis-backstop@redis-partition");
        for (Map.Entry<String, JsonNode> e : rows.entrySet()) {
            JsonNode window = e.getValue().get("faultWindows").get(0);
            assertThat(window.get("toMillis").asLong()
                            - window.get("fromMillis").asLong())
                    .as(e.getKey() + ": cut for the whole partition")
                    .isGreaterThanOrEqualTo(3_000);
            assertThat(e.getValue().get("requests").asLong()).as(e.getKey()).isPositive();
        }
        JsonNode backstop = rows.get("payment/idempotency-redis-backstop@redis-partition");
        assertThat(backstop.get("durable").asBoolean()).isTrue();
        StormJson.assertHolds("payment/idempotency-redis-backstop@redis-partition", backstop);
        JsonNode apart = rows.get("payment/idempotency-redis@redis-partition");
        assertThat(apart.get("durable").asBoolean())
                .as("a charge committed apart from its record, whose lease ran out during the partition")
                .isFalse();
        if (!apart.get("ok").asBoolean()) {
            assertThat(r.out())
                    .contains("LIMIT  idempotency-redis @redis-partition")
                    .contains("a partition longer than the lease");
        }
    }
}

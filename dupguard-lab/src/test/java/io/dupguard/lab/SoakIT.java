package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A short smoke of {@code storm --soak} on PostgreSQL + Redis: the real soak runs 10 minutes (the
 * command is in docs/lab.md); this one runs a few rounds, enough for every durable fault once,
 * and checks what the soak reports — every round's invariants, a duplicate share above 30 %,
 * samples after every round, and no leak.
 */
@Order(SecondLane.ALONE) // after the main lane's other classes: the second lane is done by then
// counts the JVM's threads and the database's sessions: nothing of the second lane meanwhile
@ResourceLock(SecondLane.LOCK)
class SoakIT {
    @TempDir
    Path dir;

    @Test
    void aShortSoakCyclesTheFaultsAndReportsHeapThreadsAndSessions() throws Exception {
        Path json = dir.resolve("soak.json");
        LabCli.Result r = LabCli.run(
                "storm",
                "--soak",
                "--duration",
                "10s",
                "--clients",
                "16",
                "--jdbc-url",
                StormPostgresRedisIT.PG,
                "--redis-url",
                StormPostgresRedisIT.REDIS,
                "--json",
                json.toString());

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        JsonNode soak = StormJson.read(json);
        JsonNode rounds = soak.get("rounds");
        assertThat(rounds.size()).isGreaterThanOrEqualTo(4);
        Set<String> faults = new HashSet<>();
        for (JsonNode round : rounds) {
            String where = "round " + round.get("round") + " "
                    + round.get("strategy").asText() + " @" + round.get("fault").asText();
            faults.add(round.get("fault").asText());
            if (round.get("fault").asText().equals("redis-restart")) {
                // Without persistence only the backstop keeps the promise: the database decides.
                assertThat(round.get("strategy").asText()).as(where).endsWith("idempotency-redis-backstop");
            }
            assertThat(round.get("requests").asLong()).as(where).isPositive();
            assertThat(round.get("duplicateEffects").asLong()).as(where).isZero();
            assertThat(round.get("lost").asLong()).as(where).isZero();
            assertThat(round.get("ok").asBoolean())
                    .as(where + " " + round.get("violations"))
                    .isTrue();
        }
        // redis-restart (no persistence) runs only with the pairs that keep the promise through it
        assertThat(faults)
                .containsExactlyInAnyOrder(
                        "store-stall", "connection-kill", "redis-restart-aof", "instance-crash", "redis-restart");
        assertThat(soak.get("samples").size()).isEqualTo(rounds.size());
        assertThat(soak.get("duplicatesSent").asDouble() / soak.get("requests").asDouble())
                .isGreaterThan(0.30);
        assertThat(soak.get("before").get("heapAfterGcBytes").asLong()).isPositive();
        assertThat(soak.get("before").get("dbSessions").asLong()).isPositive();
        assertThat(soak.get("before").get("redisConnections").asLong()).isPositive();
        assertThat(soak.get("invariantsHeld").asBoolean()).isTrue();
        assertThat(soak.get("leakFree").asBoolean()).isTrue();
        assertThat(r.out())
                .contains("heap after GC:")
                .contains("no leak")
                .contains("targets: >= 1,000,000 requests not met");
    }
}

package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A smoke of the retained-state study on PostgreSQL, MariaDB and a redis-server of its own, with a
 * few thousand keys: every phase runs, the storage per key is measured, and the SQL purge removes
 * every filled record (Redis's own expiry removes them until few a second expire; the rest is
 * reported as left to lazy expiry). Its numbers are noise here; the study's figures come from an idle machine.
 */
class ScaleIT {
    @TempDir
    Path dir;

    @Test
    void theStudyMeasuresEveryStoreEmptyFilledAndPurging() throws Exception {
        Path json = dir.resolve("scale.json");
        LabCli.Result r = LabCli.run(
                "scale",
                "--keys",
                "5000",
                "--duration",
                "1s",
                "--clients",
                "4",
                "--jdbc-url",
                StormPostgresRedisIT.PG,
                "--jdbc-url",
                StormMariaDbIT.MARIADB + "&useServerPrepStmts=true", // as docs/idempotency.md recommends
                "--redis",
                "--json",
                json.toString());

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        JsonNode stores = StormJson.read(json);
        assertThat(stores).hasSize(3);
        for (JsonNode store : stores) {
            String name = store.get("store").asText();
            for (String phase : new String[] {"empty", "retained"}) {
                assertThat(store.get(phase).get("calls").asLong())
                        .as(name + " " + phase)
                        .isPositive();
                assertThat(store.get(phase).get("errors").asLong())
                        .as(name + " " + phase)
                        .isZero();
            }
            assertThat(store.get("purge").get("during").get("errors").asLong())
                    .as(name)
                    .isZero();
            assertThat(store.get("bytesPerKey").asDouble()).as(name).isPositive();
            JsonNode purge = store.get("purge");
            assertThat(purge.get("purged").asLong() + purge.get("left").asLong())
                    .as(name)
                    .isEqualTo(5000);
            if (name.startsWith("jdbc:postgresql")) {
                assertThat(store.get("settled").asText()).as(name).startsWith("CHECKPOINT");
            } else if (name.startsWith("jdbc:mariadb")) {
                assertThat(store.get("settled").asText()).as(name).startsWith("InnoDB dirty pages");
            }
            if (name.startsWith("jdbc:")) {
                assertThat(purge.get("left").asLong()).as(name).isZero();
            } else {
                assertThat(purge.get("purged").asLong()).as(name).isPositive();
            }
        }
        assertThat(r.out()).contains("bytes per key").contains("per second").contains("retained vs empty");
    }

    /** The layout experiment runs the store's own statements on an id-clustered MariaDB table. */
    @Test
    void theSurrogateKeyExperimentRunsOnMariaDbOnly() {
        LabCli.Result r = LabCli.run(
                "scale",
                "--keys",
                "2000",
                "--duration",
                "500ms",
                "--clients",
                "4",
                "--surrogate-key",
                "--jdbc-url",
                StormMariaDbIT.MARIADB + "&useServerPrepStmts=true");
        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        assertThat(r.out())
                .contains("[experiment: AUTO_INCREMENT id clustered, unique (scope, idem_key)]")
                .contains("2,000 records in");

        LabCli.Result pg = LabCli.run("scale", "--surrogate-key", "--jdbc-url", StormPostgresRedisIT.PG);
        assertThat(pg.status()).isEqualTo(2);
        assertThat(pg.err()).contains("--surrogate-key is an experiment on MariaDB/MySQL");
    }

    @Test
    void badOptionsNameTheOptionAndTheLimit() {
        LabCli.Result few = LabCli.run("scale", "--keys", "10", "--redis");
        assertThat(few.status()).isEqualTo(2);
        assertThat(few.err()).contains("--keys must be between 1000 and 100000000, was 10");

        LabCli.Result nothing = LabCli.run("scale");
        assertThat(nothing.status()).isEqualTo(2);
        assertThat(nothing.err()).contains("--jdbc-url").contains("--redis");
    }
}

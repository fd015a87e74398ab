package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reads a {@code --json} report and checks the storm's promise against it. */
public final class StormJson {
    private static final List<String> FIELDS = List.of(
            "name",
            "family",
            "requests",
            "duplicatesSent",
            "duplicatesAbsorbed",
            "duplicateEffects",
            "lost",
            "opsPerSec",
            "p50Micros",
            "p99Micros");

    private StormJson() {}

    public static JsonNode read(Path file) throws IOException {
        return new ObjectMapper().readTree(file.toFile());
    }

    /**
     * Every naive strategy shows duplicate effects; every dupguard strategy shows none, loses
     * nothing and broke no other invariant.
     *
     * @param expected workload name to the strategies that must have run, in order
     */
    public static void assertNaiveFailAndDupguardHolds(JsonNode root, Map<String, List<String>> expected) {
        List<String> workloads = new ArrayList<>();
        for (JsonNode w : root.get("workloads")) {
            workloads.add(w.get("name").asText());
            List<String> names = new ArrayList<>();
            for (JsonNode s : w.get("strategies")) {
                String id = w.get("name").asText() + "/" + s.get("name").asText();
                names.add(s.get("name").asText());
                FIELDS.forEach(f -> assertThat(s.has(f)).as("%s has %s", id, f).isTrue());
                assertThat(s.get("requests").asLong()).as("%s requests", id).isPositive();
                assertThat(s.get("duplicatesSent").asLong())
                        .as("%s duplicates sent", id)
                        .isPositive();
                assertThat(s.get("p99Micros").asLong())
                        .as("%s p99", id)
                        .isGreaterThanOrEqualTo(s.get("p50Micros").asLong());
                if (s.get("family").asText().equals("naive")) {
                    assertThat(s.get("duplicateEffects").asLong())
                            .as("%s duplicate effects", id)
                            .isPositive();
                } else {
                    assertThat(s.get("family").asText()).isEqualTo("dupguard");
                    assertThat(s.get("duplicateEffects").asLong())
                            .as("%s duplicate effects", id)
                            .isZero();
                    assertThat(s.get("lost").asLong()).as("%s lost", id).isZero();
                    assertThat(s.get("violations")).as("%s violations", id).isEmpty();
                    assertThat(s.get("duplicatesAbsorbed").asLong())
                            .isEqualTo(s.get("duplicatesSent").asLong());
                }
            }
            assertThat(names)
                    .as("strategies of %s", w.get("name").asText())
                    .containsExactlyElementsOf(expected.get(w.get("name").asText()));
        }
        assertThat(workloads).containsExactlyInAnyOrderElementsOf(expected.keySet());
        assertThat(root.get("ok").asBoolean()).isTrue();
    }
}

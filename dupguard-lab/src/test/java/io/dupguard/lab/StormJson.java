package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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

    /**
     * How a naive strategy's failure shows in the JSON where it is not duplicate effects: a field,
     * or {@code metrics.<name>}. Keys are {@code workload/strategy}, or {@code workload/*-suffix}.
     */
    private static final Map<String, String> FAILURE = failures();

    /** Counts that must be positive for a dupguard strategy too: proof the fault actually happened. */
    private static final Map<String, String> FAULT_SEEN = Map.of(
            "lock-backends/*-fenced", "metrics.staleWritesRefused",
            "order-payment/retry-log", "metrics.retryTasksSucceeded",
            "account-credit/lock-cas-retry-log", "metrics.retryTasksSucceeded",
            "account-credit/dedup-table", "metrics.retryTasksSucceeded");

    private StormJson() {}

    private static Map<String, String> failures() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("balance-init/unique-key-no-reread", "errors");
        m.put("balance-init/retry-lock", "metrics.genuineAttemptsRefused");
        m.put("balance-init/retry-lock-requery", "metrics.genuineAttemptsRefused");
        m.put("form-submit/throttle", "metrics.differentSubmitsRefused");
        m.put("form-submit/throttle-redis", "metrics.differentSubmitsRefused");
        m.put("lock-backends/*-unfenced", "metrics.staleWritesAccepted");
        return m;
    }

    public static JsonNode read(Path file) throws IOException {
        return new ObjectMapper().readTree(file.toFile());
    }

    /** One strategy row of a report and the workload it ran in. */
    public record Row(String workload, JsonNode json) {
        /** {@code workload/strategy}, as assertions name the row. */
        public String where() {
            return workload + "/" + json.get("name").asText();
        }

        public boolean dupguard() {
            return StormJson.dupguard(json);
        }
    }

    /** Every strategy row of the report in {@code file}, workload by workload. */
    public static List<Row> rows(Path file) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (JsonNode workload : read(file).get("workloads")) {
            for (JsonNode row : workload.get("strategies")) {
                rows.add(new Row(workload.get("name").asText(), row));
            }
        }
        return rows;
    }

    /**
     * Every row of a run under faults by {@code workload/strategy@fault}, in report order, each
     * checked to have had its fault: a fault window, when the fault was in effect during the run.
     */
    public static Map<String, JsonNode> faultedRows(Path file) throws IOException {
        Map<String, JsonNode> faulted = new LinkedHashMap<>();
        for (Row each : rows(file)) {
            String where = each.where() + "@" + each.json().get("fault").asText();
            assertThat(each.json().get("faultWindows").size())
                    .as(where + ": the fault happened")
                    .isPositive();
            faulted.put(where, each.json());
        }
        return faulted;
    }

    /** Whether a row is of a dupguard strategy. */
    public static boolean dupguard(JsonNode row) {
        return row.get("family").asText().equals("dupguard");
    }

    /**
     * A row of an {@code instance-crash} run shows the crash: its fault, attempts the crash cut, and
     * for a dupguard row requests the dead instance held that the survivor acknowledged.
     */
    public static void assertCrashed(Row each) {
        JsonNode row = each.json();
        assertThat(row.get("fault").asText()).as(each.where()).isEqualTo("instance-crash");
        JsonNode metrics = row.get("metrics");
        assertThat(metrics.get("attemptsCutByCrash").asLong())
                .as(each.where() + " attempts cut by the crash")
                .isPositive();
        if (each.dupguard()) {
            assertThat(metrics.get("cutRequestsAcknowledged").asLong())
                    .as(each.where() + ": requests the dead instance held, acknowledged by the survivor")
                    .isPositive();
        }
    }

    /** The promise of a row: no duplicate effect, nothing lost, no replay mismatch, no violation. */
    public static void assertHolds(String where, JsonNode row) {
        assertThat(row.get("duplicateEffects").asLong()).as(where).isZero();
        assertThat(row.get("lost").asLong()).as(where).isZero();
        assertThat(row.get("replayMismatches").asLong()).as(where).isZero();
        assertThat(row.get("ok").asBoolean())
                .as(where + " " + row.get("violations"))
                .isTrue();
    }

    /**
     * Every naive strategy shows its failure (duplicate effects unless {@link #FAILURE} names another
     * count); every dupguard strategy shows none — no duplicate effect, nothing lost, no violation,
     * and zero of the count its workload's naive strategies fail on.
     *
     * @param expected workload name to the strategies that must have run, in order
     */
    public static void assertNaiveFailAndDupguardHolds(JsonNode root, Map<String, List<String>> expected) {
        List<String> workloads = new ArrayList<>();
        for (JsonNode w : root.get("workloads")) {
            String workload = w.get("name").asText();
            workloads.add(workload);
            List<String> names = new ArrayList<>();
            for (JsonNode s : w.get("strategies")) {
                String id = workload + "/" + s.get("name").asText();
                names.add(s.get("name").asText());
                FIELDS.forEach(f -> assertThat(s.has(f)).as("%s has %s", id, f).isTrue());
                assertThat(s.get("requests").asLong()).as("%s requests", id).isPositive();
                assertThat(s.get("duplicatesSent").asLong())
                        .as("%s duplicates sent", id)
                        .isPositive();
                assertThat(s.get("p99Micros").asLong())
                        .as("%s p99", id)
                        .isGreaterThanOrEqualTo(s.get("p50Micros").asLong());
                String failure = lookup(FAILURE, id);
                if (s.get("family").asText().equals("naive")) {
                    String measure = failure == null ? "duplicateEffects" : failure;
                    assertThat(count(s, measure)).as("%s %s", id, measure).isPositive();
                    assertThat(s.get("ok").asBoolean()).as("%s ok", id).isFalse();
                } else {
                    assertThat(s.get("family").asText()).isEqualTo("dupguard");
                    assertThat(s.get("duplicateEffects").asLong())
                            .as("%s duplicate effects", id)
                            .isZero();
                    assertThat(s.get("lost").asLong()).as("%s lost", id).isZero();
                    assertThat(s.get("violations")).as("%s violations", id).isEmpty();
                    assertThat(s.get("duplicatesAbsorbed").asLong())
                            .isEqualTo(s.get("duplicatesSent").asLong());
                    String sibling = workloadFailure(workload);
                    if (sibling != null) {
                        assertThat(count(s, sibling)).as("%s %s", id, sibling).isZero();
                    }
                    String fault = lookup(FAULT_SEEN, id);
                    if (fault != null) {
                        assertThat(count(s, fault)).as("%s %s", id, fault).isPositive();
                    }
                }
            }
            assertThat(names).as("strategies of %s", workload).containsExactlyElementsOf(expected.get(workload));
        }
        assertThat(workloads).containsExactlyInAnyOrderElementsOf(expected.keySet());
        assertThat(root.get("ok").asBoolean()).isTrue();
    }

    /** The metric a workload's naive strategies fail on, if it is a metric the dupguard ones also report. */
    private static String workloadFailure(String workload) {
        return FAILURE.entrySet().stream()
                .filter(e ->
                        e.getKey().startsWith(workload + "/") && e.getValue().startsWith("metrics."))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(null);
    }

    private static String lookup(Map<String, String> map, String id) {
        for (Map.Entry<String, String> e : map.entrySet()) {
            String key = e.getKey();
            int star = key.indexOf("/*");
            if (key.equals(id)
                    || (star >= 0
                            && id.startsWith(key.substring(0, star + 1))
                            && id.endsWith(key.substring(star + 2)))) {
                return e.getValue();
            }
        }
        return null;
    }

    private static long count(JsonNode strategy, String path) {
        JsonNode node = strategy;
        for (String part : path.split("\\.")) {
            node = node.get(part);
            assertThat(node).as("%s in %s", path, strategy.get("name").asText()).isNotNull();
        }
        return node.asLong();
    }
}

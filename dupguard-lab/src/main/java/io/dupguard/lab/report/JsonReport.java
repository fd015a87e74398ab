package io.dupguard.lab.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dupguard.lab.storm.StormReport;
import java.io.IOException;
import java.nio.file.Path;

/**
 * {@code --json FILE}: {@code {"workloads":[{"name":…,"strategies":[{"name":…,"family":…,
 * "requests":…,"duplicatesSent":…,"duplicatesAbsorbed":…,"duplicateEffects":…,"lost":…,
 * "opsPerSec":…,"p50Micros":…,"p99Micros":…, …}]}], "setup":{…}, "wallSeconds":…, "ok":…}}}.
 */
public final class JsonReport {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {}

    public static void write(StormReport report, Path file) throws IOException {
        MAPPER.writeValue(file.toFile(), report);
    }

    /** {@code report} (any of the lab's report records) as indented JSON. */
    public static String json(Object report) throws IOException {
        return MAPPER.writeValueAsString(report);
    }
}

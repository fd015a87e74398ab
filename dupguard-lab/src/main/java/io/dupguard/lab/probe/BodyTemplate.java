package io.dupguard.lab.probe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.UUID;

/**
 * A request body with placeholders filled per logical request: {@code {{key}}} (the request's
 * idempotency key), {@code {{uuid}}} (a fresh random UUID) and {@code {{n}}} (the request's
 * number in the run, from 1). Nothing else is interpreted.
 */
public record BodyTemplate(String text) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public BodyTemplate {
        text = text == null ? "" : text;
    }

    /** The body of logical request {@code n} with idempotency key {@code key}. */
    public String fill(String key, long n) {
        return text.replace("{{key}}", key)
                .replace("{{uuid}}", UUID.randomUUID().toString())
                .replace("{{n}}", Long.toString(n));
    }

    /**
     * Refuses a template that is not valid for {@code contentType} once filled (JSON media types
     * only: {@code application/json}, {@code …+json}).
     *
     * @throws ProbeInputException naming the option and the parser's complaint
     */
    public void check(String contentType, String option) {
        if (!isJson(contentType) || text.isEmpty()) {
            return;
        }
        String sample = fill("probe-check-key", 1);
        try {
            JSON.readTree(sample);
        } catch (JsonProcessingException e) {
            throw new ProbeInputException(option + ": not valid JSON once {{key}}, {{uuid}} and {{n}} are filled"
                    + " (Content-Type " + contentType + "): " + e.getOriginalMessage() + "; the filled body: "
                    + abbreviate(sample) + " (for another content type pass --header 'Content-Type: …')");
        }
    }

    /**
     * The same body changed so that a service comparing bodies must notice: a JSON object gets one
     * more member, anything else a trailing line.
     */
    public BodyTemplate changed() {
        String trimmed = text.strip();
        if (trimmed.startsWith("{") && trimmed.endsWith("}")) {
            String inner = trimmed.substring(1, trimmed.length() - 1).strip();
            return new BodyTemplate("{" + inner + (inner.isEmpty() ? "" : ",") + "\"dupguardProbeChanged\":true}");
        }
        return new BodyTemplate(text + "\nchanged by dupguard probe");
    }

    static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        String type = contentType.split(";", 2)[0].strip().toLowerCase(java.util.Locale.ROOT);
        return type.equals("application/json") || type.endsWith("+json");
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }
}

package io.dupguard.lab.probe;

import java.util.Map;

/**
 * One attempt's outcome as the client saw it.
 *
 * @param outcome the status code ({@code "201"}), or {@code "cut after 10ms"}, {@code "timeout"},
 *     {@code "error: …"} when no answer came
 * @param status the HTTP status, 0 without an answer
 * @param body the response body, "" without an answer
 * @param headers the response headers, names in lower case, values joined with {@code ", "}
 * @param micros how long the attempt took
 */
public record Answer(String outcome, int status, String body, Map<String, String> headers, long micros) {
    /** Whether the service answered with success (2xx). */
    public boolean success() {
        return status >= 200 && status < 300;
    }

    /**
     * Whether a client would send the same request again: no answer, 409 (in flight elsewhere),
     * 425, 429 or a 5xx.
     */
    public boolean retryable() {
        return status == 0 || status == 409 || status == 425 || status == 429 || status >= 500;
    }
}

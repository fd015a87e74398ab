package io.dupguard.console;

import java.util.Map;
import java.util.Objects;

/**
 * A request as the host hands it over: the path below the console's base path, the parameters
 * (query and form), who asks, and the host's CSRF verdict.
 *
 * @param method {@code GET} or {@code POST}
 * @param path the path below the base path, starting with {@code /}
 * @param params the query and form parameters (first value of each)
 * @param actor who asks; not null (the host authenticates)
 * @param csrf the CSRF token to put in forms and whether this request carried a valid one
 * @param basePath the console's base path, for links, e.g. {@code /dupguard}
 */
public record ConsoleRequest(
        String method, String path, Map<String, String> params, Actor actor, Csrf csrf, String basePath) {
    /**
     * Checks the arguments.
     *
     * @param method {@code GET} or {@code POST}; not null
     * @param path the path below the base path; null or empty means {@code /}
     * @param params the query and form parameters; copied
     * @param actor who asks; not null
     * @param csrf the host's CSRF verdict; not null
     * @param basePath the console's base path; null means none
     */
    public ConsoleRequest {
        Objects.requireNonNull(method, "method");
        path = path == null || path.isEmpty() ? "/" : path;
        params = Map.copyOf(params);
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(csrf, "csrf");
        basePath = basePath == null ? "" : basePath;
    }

    /**
     * The host's CSRF protection for this request.
     *
     * @param parameter the form field name the host checks
     * @param token the token to put in forms (and in the API's {@code X-CSRF-TOKEN} header)
     * @param verified whether this request carried a valid token (the host checked it)
     */
    public record Csrf(String parameter, String token, boolean verified) {}

    String param(String name) {
        String v = params.get(name);
        return v == null || v.isBlank() ? null : v;
    }

    boolean post() {
        return "POST".equals(method);
    }
}

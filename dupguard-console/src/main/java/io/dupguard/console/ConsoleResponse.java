package io.dupguard.console;

/**
 * What the host sends back.
 *
 * @param status the HTTP status
 * @param contentType the content type with its charset
 * @param body the body (UTF-8)
 */
public record ConsoleResponse(int status, String contentType, String body) {
    static final String HTML = "text/html; charset=utf-8";
    static final String JSON = "application/json; charset=utf-8";

    static ConsoleResponse html(int status, String body) {
        return new ConsoleResponse(status, HTML, body);
    }

    static ConsoleResponse json(int status, Object body) {
        return new ConsoleResponse(status, JSON, Json.write(body));
    }
}

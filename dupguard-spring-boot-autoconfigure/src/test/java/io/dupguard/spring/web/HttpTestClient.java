package io.dupguard.spring.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.springframework.test.context.DynamicPropertyRegistry;

/** Real HTTP to an {@link HttpTestApp} on a local port, as its users alice/a and bob/b. */
final class HttpTestClient {
    final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final int port;

    HttpTestClient(int port) {
        this.port = port;
    }

    /** The PostgreSQL of the tests ({@code dupguard.pg.url}) as the application's DataSource. */
    static void postgres(DynamicPropertyRegistry r) {
        r.add(
                "spring.datasource.url",
                () -> System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
    }

    /** A JSON POST as {@code user} (password: its first letter), with the key header unless null. */
    HttpRequest post(String path, String user, String key, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header(
                        "Authorization",
                        "Basic "
                                + Base64.getEncoder()
                                        .encodeToString((user + ":" + user.charAt(0)).getBytes(StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return b.build();
    }

    HttpResponse<String> send(HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    static boolean replayed(HttpResponse<String> r) {
        return r.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER).isPresent();
    }
}

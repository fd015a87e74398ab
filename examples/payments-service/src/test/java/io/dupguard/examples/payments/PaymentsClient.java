package io.dupguard.examples.payments;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** The example's API over real HTTP (java.net.http), as the demo clients shop-a and shop-b. */
final class PaymentsClient {
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final int port;

    PaymentsClient(int port) {
        this.port = port;
    }

    HttpClient http() {
        return http;
    }

    HttpRequest pay(String client, String key, String account, String amount) {
        return request("/payments", client)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"account\":\"" + account + "\",\"amount\":\"" + amount + "\"}"))
                .build();
    }

    HttpRequest.Builder request(String path, String client) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30));
        if (client != null) {
            String password = client.equals("shop-a") ? "secret-a" : "secret-b";
            b.header(
                    "Authorization",
                    "Basic "
                            + Base64.getEncoder()
                                    .encodeToString((client + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return b;
    }

    HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}

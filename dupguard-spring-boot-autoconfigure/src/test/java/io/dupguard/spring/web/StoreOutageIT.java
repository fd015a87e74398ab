package io.dupguard.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The idempotency store is down (Redis on a port that refuses connections): a request with a key
 * is answered 503 store-unavailable and the application never runs it; the health contributor
 * reports DOWN. An outage never reads as "not a duplicate".
 */
@SpringBootTest(classes = HttpTestApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StoreOutageIT {
    static final String TABLE =
            "it_outage_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    static int refusedPort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort(); // closed again at once: connections to it are refused
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        HttpTestClient.postgres(r);
        int port = refusedPort();
        r.add("spring.data.redis.host", () -> "127.0.0.1");
        r.add("spring.data.redis.port", () -> String.valueOf(port));
        r.add("spring.data.redis.timeout", () -> "1s");
        r.add("dupguard.store", () -> "redis");
        r.add("dupguard.health.timeout", () -> "3s");
        r.add("management.endpoints.web.exposure.include", () -> "health");
        r.add("management.endpoint.health.show-details", () -> "always");
        r.add("dupguard.http.endpoints[0].paths", () -> "/charges");
        r.add("dupguard.http.endpoints[0].required", () -> "true");
        HttpTestApp.table = TABLE;
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcTemplate jdbc;

    static JdbcTemplate cleanup;

    @BeforeAll
    static void table(@Autowired JdbcTemplate jdbc) {
        cleanup = jdbc;
        HttpTestApp.createCharges(jdbc, TABLE);
    }

    @AfterAll
    static void drop() {
        cleanup.execute("drop table if exists " + TABLE);
    }

    private HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        b.header(
                                        "Authorization",
                                        "Basic "
                                                + Base64.getEncoder()
                                                        .encodeToString("alice:a".getBytes(StandardCharsets.UTF_8)))
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aRequestWithAKeyIsRefusedWith503AndNeverRuns() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/charges"))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", "k-" + UUID.randomUUID())
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":\"1\"}")));
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("https://dupguard.io/problems/store-unavailable");
        assertThat(jdbc.queryForObject("select count(*) from " + TABLE, Integer.class))
                .isZero();
    }

    @Test
    void theHealthContributorReportsTheStoreDown() throws Exception {
        HttpResponse<String> health =
                send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                        .GET());
        assertThat(health.statusCode()).isEqualTo(503);
        assertThat(health.body()).contains("\"idempotencyStore\":{\"details\"").contains("\"status\":\"DOWN\"");
    }
}

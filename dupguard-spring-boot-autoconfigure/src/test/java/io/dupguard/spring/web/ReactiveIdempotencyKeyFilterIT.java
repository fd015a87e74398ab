package io.dupguard.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The WebFlux Idempotency-Key filter over real HTTP (Netty on a random port, java.net.http client,
 * Spring Security basic auth, the jdbc store and the charges on PostgreSQL).
 */
// Closed after the class, so its pool does not hold PostgreSQL connections while later ITs run.
@DirtiesContext
@SpringBootTest(
        classes = ReactiveIdempotencyKeyFilterIT.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.main.web-application-type=reactive")
class ReactiveIdempotencyKeyFilterIT {
    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    static final String TABLE = "it_rx_charges_" + SUFFIX;
    static final String IDEM = "it_rx_idem_" + SUFFIX;
    /** Failure tokens already used: the first request carrying one is answered 503. */
    static final Set<String> FAILED = ConcurrentHashMap.newKeySet();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        r.add(
                "spring.datasource.url",
                () -> System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        r.add("spring.datasource.hikari.maximum-pool-size", () -> "8");
        r.add("dupguard.jdbc.idempotency-table", () -> IDEM);
        r.add("dupguard.http.endpoints[0].paths", () -> "/charges");
        r.add("dupguard.http.endpoints[0].methods", () -> "POST");
        r.add("dupguard.http.endpoints[0].required", () -> "true");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableWebFluxSecurity
    @Import(Charges.class)
    static class App {
        @Bean
        SecurityWebFilterChain api(ServerHttpSecurity http) {
            return http.authorizeExchange(a -> a.anyExchange().authenticated())
                    .httpBasic(b -> {})
                    .csrf(ServerHttpSecurity.CsrfSpec::disable)
                    .build();
        }

        @Bean
        MapReactiveUserDetailsService users() {
            return new MapReactiveUserDetailsService(
                    User.withUsername("alice").password("{noop}a").roles("C").build(),
                    User.withUsername("bob").password("{noop}b").roles("C").build());
        }
    }

    @RestController
    static class Charges {
        private final JdbcTemplate jdbc;

        Charges(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @PostMapping("/charges")
        Mono<ResponseEntity<Map<String, Object>>> charge(
                @RequestBody Map<String, Object> body,
                @RequestHeader(name = "X-Fail-Once", required = false) String failOnce,
                java.security.Principal principal) {
            return Mono.fromCallable(() -> {
                        if (failOnce != null && FAILED.add(failOnce)) {
                            return ResponseEntity.status(503).<Map<String, Object>>body(Map.of("error", "busy"));
                        }
                        // slow enough that concurrent duplicates arrive while the first one runs
                        Long id = jdbc.queryForObject(
                                "insert into " + TABLE + " (principal, amount) select ?, ? from pg_sleep(0.05)"
                                        + " returning id",
                                Long.class,
                                principal.getName(),
                                String.valueOf(body.get("amount")));
                        return ResponseEntity.created(URI.create("/charges/" + id))
                                .<Map<String, Object>>body(Map.of("id", id, "amount", body.get("amount")));
                    })
                    .subscribeOn(Schedulers.boundedElastic());
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcTemplate jdbc;

    static JdbcTemplate cleanup;

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @BeforeAll
    static void table(@Autowired JdbcTemplate jdbc) {
        cleanup = jdbc;
        jdbc.execute("create table " + TABLE + " (id bigserial primary key, principal text not null, amount text)");
    }

    @AfterAll
    static void drop() {
        cleanup.execute("drop table if exists " + TABLE);
        cleanup.execute("drop table if exists " + IDEM);
    }

    private HttpRequest post(String user, String key, String body, String failOnce) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/charges"))
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
        if (failOnce != null) {
            b.header("X-Fail-Once", failOnce);
        }
        return b.build();
    }

    private HttpResponse<String> send(HttpRequest r) throws Exception {
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }

    private int charges(String amount) {
        return jdbc.queryForObject("select count(*) from " + TABLE + " where amount = ?", Integer.class, amount);
    }

    @Test
    void concurrentRequestsWithOneKeyChargeOnceAndAllGetTheFirstResponse() throws Exception {
        String key = UUID.randomUUID().toString();
        String amount = "c-" + SUFFIX;
        HttpRequest request = post("alice", key, "{\"amount\":\"" + amount + "\"}", null);
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            calls.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        List<String> bodies = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            HttpResponse<String> r = call.get();
            if (r.statusCode() == 409) { // in flight: the client retries until the first one finished
                assertThat(r.body()).contains("request-in-flight");
                r = Awaitility.await()
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> send(request), again -> again.statusCode() != 409);
            }
            assertThat(r.statusCode()).isEqualTo(201);
            assertThat(r.headers().firstValue("Location")).isPresent();
            bodies.add(r.body());
        }
        assertThat(charges(amount)).isEqualTo(1);
        assertThat(bodies).allMatch(b -> b.equals(bodies.get(0)));
        HttpResponse<String> replay = send(request);
        assertThat(replay.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .hasValue("true");
        assertThat(replay.body()).isEqualTo(bodies.get(0));
    }

    @Test
    void aDifferentBodyWithTheSameKeyIs422() throws Exception {
        String key = UUID.randomUUID().toString();
        assertThat(send(post("alice", key, "{\"amount\":\"d1-" + SUFFIX + "\"}", null))
                        .statusCode())
                .isEqualTo(201);
        HttpResponse<String> reused = send(post("alice", key, "{\"amount\":\"d2-" + SUFFIX + "\"}", null));
        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(reused.body()).contains("\"type\":\"https://dupguard.io/problems/key-reused\"");
        assertThat(charges("d2-" + SUFFIX)).isZero();
    }

    @Test
    void twoPrincipalsWithOneKeyGetTwoIndependentCharges() throws Exception {
        String key = UUID.randomUUID().toString();
        String amount = "p-" + SUFFIX;
        HttpResponse<String> a = send(post("alice", key, "{\"amount\":\"" + amount + "\"}", null));
        HttpResponse<String> b = send(post("bob", key, "{\"amount\":\"" + amount + "\"}", null));
        assertThat(a.statusCode()).isEqualTo(201);
        assertThat(b.statusCode()).isEqualTo(201);
        assertThat(b.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER)).isEmpty();
        assertThat(a.body()).isNotEqualTo(b.body());
        assertThat(charges(amount)).isEqualTo(2);
    }

    @Test
    void aServerErrorReleasesTheKeySoTheRetryRunsAgain() throws Exception {
        String key = UUID.randomUUID().toString();
        String amount = "f-" + SUFFIX;
        HttpRequest request = post("alice", key, "{\"amount\":\"" + amount + "\"}", "fail-" + key);
        assertThat(send(request).statusCode()).isEqualTo(503);
        HttpResponse<String> retry = send(request);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .isEmpty();
        assertThat(charges(amount)).isEqualTo(1);
    }

    @Test
    void missingAndBadKeysAre400() throws Exception {
        HttpResponse<String> missing = send(post("alice", null, "{\"amount\":\"m\"}", null));
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.body()).contains("key-missing");
        HttpResponse<String> tooLong = send(post("alice", "k".repeat(200), "{\"amount\":\"m\"}", null));
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(tooLong.body()).contains("key-invalid");
        assertThat(charges("m")).isZero();
    }
}

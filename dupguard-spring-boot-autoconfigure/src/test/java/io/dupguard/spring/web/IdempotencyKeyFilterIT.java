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
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The Idempotency-Key filter over real HTTP (Tomcat on a random port, java.net.http client, PostgreSQL). */
@SpringBootTest(classes = HttpTestApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@org.springframework.test.annotation.DirtiesContext // closes its pool: the module's ITs share one PostgreSQL
class IdempotencyKeyFilterIT {
    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    static final String TABLE = "it_charges_" + SUFFIX;
    static final String IDEM = "it_http_idem_" + SUFFIX;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        HttpTestClient.postgres(r);
        r.add("spring.datasource.hikari.maximum-pool-size", () -> "40");
        r.add("dupguard.jdbc.idempotency-table", () -> IDEM);
        r.add(
                "dupguard.http.endpoints[0].paths",
                () ->
                        "/charges,/flaky,/big,/reject,/async,/fail-after-insert,/typed,/send-error,/decline,/killed-after-insert");
        r.add("dupguard.http.endpoints[0].methods", () -> "POST");
        r.add("dupguard.http.endpoints[0].required", () -> "true");
        r.add("dupguard.http.max-stored-body-size", () -> "1024");
        r.add("management.endpoints.web.exposure.include", () -> "health,dupguard");
        r.add("management.endpoint.health.show-details", () -> "always");
        HttpTestApp.table = TABLE;
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
        HttpTestApp.createCharges(jdbc, TABLE);
    }

    @AfterAll
    static void drop() {
        cleanup.execute("drop table if exists " + TABLE);
        cleanup.execute("drop table if exists " + IDEM);
    }

    private HttpRequest post(String path, String user, String key, String body) {
        return new HttpTestClient(port).post(path, user, key, body);
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private int rows(String user, String key) {
        return jdbc.queryForObject(
                "select count(*) from " + TABLE + " where principal = ? and client_key = ?", Integer.class, user, key);
    }

    private static String type(HttpResponse<String> r) {
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        return r.body().replaceAll(".*\"type\":\"https://dupguard.io/problems/([a-z-]+)\".*", "$1");
    }

    @Test
    void thirtyTwoConcurrentPostsWithOneKeyChargeOnceAndAllGetTheSameAnswer() throws Exception {
        // Open 32 keep-alive connections first, so the 32 POSTs below leave together.
        List<CompletableFuture<HttpResponse<String>>> warm = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            warm.add(client.sendAsync(
                    post("/reject", "alice", UUID.randomUUID().toString(), "{}"),
                    HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> f : warm) {
            f.get();
        }
        String key = UUID.randomUUID().toString();
        String body = "{\"amount\":\"10.00\"}";
        List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            inFlight.add(client.sendAsync(post("/charges", "alice", key, body), HttpResponse.BodyHandlers.ofString()));
        }
        long sent = System.nanoTime();
        List<HttpResponse<String>> responses = new ArrayList<>();
        List<Long> millis = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> f : inFlight) {
            responses.add(f.get());
            millis.add((System.nanoTime() - sent) / 1_000_000);
        }
        System.out.println("responses after ms: " + millis);
        String first = null;
        int ran = 0;
        int conflicts = 0;
        for (HttpResponse<String> r : responses) {
            if (r.statusCode() == 409) {
                assertThat(type(r)).isEqualTo("request-in-flight");
                conflicts++;
                continue;
            }
            assertThat(r.statusCode()).isEqualTo(201);
            first = first == null ? r.body() : first;
            assertThat(r.body()).isEqualTo(first);
            if (r.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER).isEmpty()) {
                ran++;
            }
        }
        // Those rejected while the first ran retry, as a client would, and get the same answer.
        for (int i = 0; i < conflicts; i++) {
            HttpResponse<String> retry = Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> send(post("/charges", "alice", key, body)), r -> r.statusCode() != 409);
            assertThat(retry.statusCode()).isEqualTo(201);
            assertThat(retry.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                    .hasValue("true");
            assertThat(retry.headers().firstValue("Location")).isPresent();
            assertThat(retry.headers().firstValue("X-Not-Replayed")).isEmpty();
            first = first == null ? retry.body() : first;
            assertThat(retry.body()).isEqualTo(first);
        }
        assertThat(ran).isEqualTo(1);
        assertThat(rows("alice", key)).isEqualTo(1);
        System.out.println("32 concurrent POSTs: 1 ran, " + (32 - 1 - conflicts) + " replayed, " + conflicts
                + " got 409 while in flight");
    }

    @Autowired
    HttpTestApp.Ledger ledger;

    @Autowired
    HttpTestApp.Charges charges;

    @Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    private HttpResponse<String> get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header(
                        "Authorization",
                        "Basic " + Base64.getEncoder().encodeToString("alice:a".getBytes(StandardCharsets.UTF_8)))
                .GET()
                .build());
    }

    @Test
    void healthEndpointAndMetersShowTheStoresLocksAndOutcomes() throws Exception {
        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body())
                .contains("\"dupguard\":{\"components\":{\"idempotencyStore\":")
                .contains("\"lockProvider\":")
                .contains("\"submissionTokens\":")
                .contains("\"store\":\"JdbcIdempotencyStore\"")
                .doesNotContain("DOWN");

        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<Long> settled = pool.submit(() -> ledger.settle("acc-7"));
            if (!ledger.entered().await(10, java.util.concurrent.TimeUnit.SECONDS)) {
                settled.get(1, java.util.concurrent.TimeUnit.SECONDS); // shows why it never ran
            }
            HttpResponse<String> endpoint = get("/actuator/dupguard");
            assertThat(endpoint.statusCode()).isEqualTo(200);
            assertThat(endpoint.body())
                    .contains("\"idempotencyStore\":\"JdbcIdempotencyStore\"")
                    .contains("\"name\":\"ledger:acc-7\"")
                    .contains("\"fencingToken\"");
            ledger.release();
            assertThat(settled.get(10, java.util.concurrent.TimeUnit.SECONDS)).isPositive();
        } finally {
            pool.shutdownNow();
        }
        assertThat(get("/actuator/dupguard").body()).contains("\"heldLocks\":[]");

        String key = UUID.randomUUID().toString();
        send(post("/charges", "alice", key, "{\"amount\":\"1\"}"));
        send(post("/charges", "alice", key, "{\"amount\":\"1\"}"));
        send(post("/charges", "alice", key, "{\"amount\":\"2\"}"));
        assertThat(meters.get("dupguard.idempotency.calls")
                        .tag("outcome", "first")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(1);
        assertThat(meters.get("dupguard.idempotency.calls")
                        .tag("outcome", "replayed")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(1);
        assertThat(meters.get("dupguard.http.replays").counter().count()).isGreaterThanOrEqualTo(1);
        assertThat(meters.get("dupguard.http.problems")
                        .tag("type", "key-reused")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(1);
        assertThat(meters.get("dupguard.lock.held").timer().count()).isGreaterThanOrEqualTo(1);
        assertThat(meters.get("dupguard.lock.wait")
                        .tag("result", "acquired")
                        .timer()
                        .count())
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void asynchronousResponsesPassThroughWithTheKeyReleased() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = send(post("/async", "alice", key, "{}"));
        HttpResponse<String> second = send(post("/async", "alice", key, "{}"));
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).startsWith("async run ");
        assertThat(second.body()).startsWith("async run ").isNotEqualTo(first.body());
        assertThat(second.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .isEmpty();
    }

    @Test
    void aDifferentBodyWithTheSameKeyIs422() throws Exception {
        String key = UUID.randomUUID().toString();
        assertThat(send(post("/charges", "alice", key, "{\"amount\":\"1\"}")).statusCode())
                .isEqualTo(201);
        HttpResponse<String> other = send(post("/charges", "alice", key, "{\"amount\":\"2\"}"));
        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(type(other)).isEqualTo("key-reused");
        assertThat(rows("alice", key)).isEqualTo(1);
    }

    @Test
    void twoPrincipalsWithTheSameKeyAreIndependent() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> alice = send(post("/charges", "alice", key, "{\"amount\":\"5\"}"));
        HttpResponse<String> bob = send(post("/charges", "bob", key, "{\"amount\":\"5\"}"));
        assertThat(alice.statusCode()).isEqualTo(201);
        assertThat(bob.statusCode()).isEqualTo(201);
        assertThat(bob.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .isEmpty();
        assertThat(bob.body()).contains("\"by\":\"bob\"").isNotEqualTo(alice.body());
        assertThat(rows("alice", key)).isEqualTo(1);
        assertThat(rows("bob", key)).isEqualTo(1);
    }

    @Test
    void aServerErrorReleasesTheKeySoTheRetryRunsAgain() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> failed = send(post("/flaky", "alice", key, "{\"amount\":\"3\"}"));
        assertThat(failed.statusCode()).isEqualTo(503);
        assertThat(rows("alice", key)).isZero();
        HttpResponse<String> retry = send(post("/flaky", "alice", key, "{\"amount\":\"3\"}"));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .isEmpty();
        HttpResponse<String> replay = send(post("/flaky", "alice", key, "{\"amount\":\"3\"}"));
        assertThat(replay.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .hasValue("true");
        assertThat(replay.body()).isEqualTo(retry.body());
        assertThat(rows("alice", key)).isEqualTo(1);
    }

    @Test
    void missingAndMalformedKeysAre400() throws Exception {
        HttpResponse<String> missing = send(post("/charges", "alice", null, "{}"));
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(type(missing)).isEqualTo("key-missing");
        HttpResponse<String> tooLong = send(post("/charges", "alice", "k".repeat(129), "{}"));
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(type(tooLong)).isEqualTo("key-invalid");
        assertThat(tooLong.body()).contains("129 characters", "at most 128");
        // An sf-string ("...", RFC 8941) is unescaped: "q-abc" and the bare q-abc are one key.
        String bare = "q-" + UUID.randomUUID();
        String quoted = "\"" + bare + "\"";
        HttpResponse<String> first = send(post("/decline", "alice", quoted, "{}"));
        HttpResponse<String> same = send(post("/decline", "alice", bare, "{}"));
        // the application reads the key as parsed, unquoted (CLIENT_KEY_ATTRIBUTE)
        assertThat(first.body()).contains("\"parsed\":\"" + bare + "\"");
        assertThat(first.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .isEmpty();
        assertThat(same.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .hasValue("true");
        HttpResponse<String> badEscape = send(post("/reject", "alice", "\"a\\b\"", "{}"));
        assertThat(badEscape.statusCode()).isEqualTo(400);
        assertThat(type(badEscape)).isEqualTo("key-invalid");
        // An unterminated sf-string, and a quote in a bare key, are refused before anything runs.
        for (String bad : new String[] {"\"abc", "a\"bc"}) {
            HttpResponse<String> refused = send(post("/charges", "alice", bad, "{\"amount\":\"1\"}"));
            assertThat(refused.statusCode()).as(bad).isEqualTo(400);
            assertThat(type(refused)).isEqualTo("key-invalid");
        }
        assertThat(jdbc.queryForObject(
                        "select count(*) from " + TABLE + " where client_key in ('\"abc', 'a\"bc')", Integer.class))
                .isZero();
    }

    @Test
    void aResponseThatIsNotStoredRollsBackTheRequestsWritesWithItsKey() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> failed = send(post("/fail-after-insert", "alice", key, "{\"amount\":\"4\"}"));
        assertThat(failed.statusCode()).isEqualTo(503);
        assertThat(failed.body()).contains("ledger unavailable after insert");
        assertThat(rows("alice", key))
                .as("the insert rolled back with the claim")
                .isZero();
        HttpResponse<String> retry = send(post("/fail-after-insert", "alice", key, "{\"amount\":\"4\"}"));
        assertThat(retry.statusCode()).isEqualTo(201);
        HttpResponse<String> replay = send(post("/fail-after-insert", "alice", key, "{\"amount\":\"4\"}"));
        assertThat(replay.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .hasValue("true");
        assertThat(replay.body()).isEqualTo(retry.body());
        assertThat(rows("alice", key)).isEqualTo(1);
    }

    @Test
    void aConnectionKilledAfterTheInsertLeavesNothingAndTheRetryChargesOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = "{\"amount\":\"6\"}";
        HttpResponse<String> killed = send(post("/killed-after-insert", "alice", key, body));
        assertThat(killed.statusCode()).isGreaterThanOrEqualTo(500);
        // the transaction died with its connection: neither the insert nor the claim committed
        assertThat(rows("alice", key)).isZero();
        HttpResponse<String> retry = send(post("/killed-after-insert", "alice", key, body));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .isEmpty();
        HttpResponse<String> replay = send(post("/killed-after-insert", "alice", key, body));
        assertThat(replay.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .hasValue("true");
        assertThat(replay.body()).isEqualTo(retry.body());
        assertThat(rows("alice", key)).isEqualTo(1);
    }

    private HttpRequest postAs(String path, String key, String contentType, String body) {
        HttpRequest r = post(path, "alice", key, body);
        return HttpRequest.newBuilder(r, (n, v) -> !n.equalsIgnoreCase("Content-Type"))
                .header("Content-Type", contentType)
                .build();
    }

    @Test
    void aRequestThatNeverExecutedReleasesItsKeySoTheCorrectedRetryRuns() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> malformed = send(post("/typed", "alice", key, "{\"amount\": 1.00"));
        assertThat(malformed.statusCode()).isEqualTo(400);
        HttpResponse<String> wrongType = send(postAs("/typed", key, "text/plain", "amount=1.00"));
        assertThat(wrongType.statusCode()).isEqualTo(415);
        HttpResponse<String> corrected = send(post("/typed", "alice", key, "{\"amount\": 1.00}"));
        assertThat(corrected.statusCode()).isEqualTo(201);
        assertThat(corrected.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .isEmpty();
        assertThat(rows("alice", key)).isEqualTo(1);
    }

    @Test
    void aResponseSentWithSendErrorIsNotStoredSoItIsNeverReplayedWithAnotherBody() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = charges.sendErrors.get();
        HttpResponse<String> first = send(post("/send-error", "alice", key, "{}"));
        HttpResponse<String> second = send(post("/send-error", "alice", key, "{}"));
        assertThat(first.statusCode()).isEqualTo(409);
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(second.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .isEmpty();
        // Both are the container's full error answer (Boot's JSON), not a stored empty body ...
        assertThat(first.body()).contains("\"status\":409");
        assertThat(second.body()).contains("\"status\":409");
        // ... because the key was released: the second request ran again.
        assertThat(charges.sendErrors.get()).isEqualTo(before + 2);
    }

    @Test
    void clientErrorsAreReplayedAndOversizedResponsesAreNeverReplayedTruncated() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> rejected = send(post("/decline", "alice", key, "{}"));
        HttpResponse<String> again = send(post("/decline", "alice", key, "{}"));
        assertThat(rejected.statusCode()).isEqualTo(402);
        assertThat(again.statusCode()).isEqualTo(402);
        assertThat(again.body()).isEqualTo(rejected.body());
        assertThat(again.headers().firstValue(IdempotencyKeyFilter.REPLAYED_HEADER))
                .hasValue("true");

        String big = UUID.randomUUID().toString();
        HttpResponse<String> first = send(post("/big", "alice", big, "{}"));
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).hasSize(4096);
        HttpResponse<String> replay = send(post("/big", "alice", big, "{}"));
        assertThat(replay.statusCode()).isEqualTo(409);
        assertThat(type(replay)).isEqualTo("response-not-replayable");
        assertThat(replay.body()).contains("4096 bytes", "1024 bytes");
    }
}

package io.dupguard.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.spring.IdempotentExecution;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Redis for speed, the database for truth: {@code dupguard.store=redis} in an application with a
 * DataSource runs the filter in backstop mode. Redis (127.0.0.1:6379) answers concurrent duplicates
 * and replays; the key's row in PostgreSQL commits with the request's writes and decides when Redis
 * lost the key.
 */
@SpringBootTest(classes = HttpTestApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@org.springframework.test.annotation.DirtiesContext // its pools close with it: the module's ITs share one PostgreSQL
class BackstopIT {
    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    static final String TABLE = "it_backstop_charges_" + SUFFIX;
    static final String IDEM = "it_backstop_idem_" + SUFFIX;
    static final String PREFIX = "it:backstop:" + SUFFIX + ":";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        HttpTestClient.postgres(r);
        r.add("spring.data.redis.host", () -> "127.0.0.1");
        r.add("spring.data.redis.port", () -> "6379");
        r.add("dupguard.store", () -> "redis");
        r.add("dupguard.redis.idempotency-key-prefix", () -> PREFIX);
        r.add("dupguard.jdbc.idempotency-table", () -> IDEM);
        r.add("dupguard.http.endpoints[0].paths", () -> "/charges,/fail-after-insert");
        r.add("dupguard.http.endpoints[0].required", () -> "true");
        HttpTestApp.table = TABLE;
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    StringRedisTemplate redis;

    @Autowired
    FilterRegistrationBean<IdempotencyKeyFilter> filter;

    static JdbcTemplate cleanup;

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

    private HttpTestClient http;

    @org.junit.jupiter.api.BeforeEach
    void client() {
        http = new HttpTestClient(port);
    }

    private HttpRequest post(String path, String key, String body) {
        return http.post(path, "alice", key, body);
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request);
    }

    private int rows(String key) {
        return jdbc.queryForObject("select count(*) from " + TABLE + " where client_key = ?", Integer.class, key);
    }

    @Test
    void theFilterRunsInBackstopMode() {
        assertThat(filter.getFilter().execution().mode()).isEqualTo(IdempotentExecution.Mode.BACKSTOP);
    }

    @Test
    void concurrentDuplicatesAreAnsweredByRedisAndChargeOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = "{\"amount\":\"10.00\"}";
        List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            inFlight.add(http.client.sendAsync(post("/charges", key, body), HttpResponse.BodyHandlers.ofString()));
        }
        int ran = 0;
        String first = null;
        for (CompletableFuture<HttpResponse<String>> f : inFlight) {
            HttpResponse<String> r = f.get();
            HttpResponse<String> answer = r.statusCode() == 409
                    ? Awaitility.await()
                            .atMost(Duration.ofSeconds(20))
                            .until(() -> send(post("/charges", key, body)), x -> x.statusCode() != 409)
                    : r;
            assertThat(answer.statusCode()).isEqualTo(201);
            first = first == null ? answer.body() : first;
            assertThat(answer.body()).isEqualTo(first);
            ran += HttpTestClient.replayed(answer) ? 0 : 1;
        }
        assertThat(ran).isEqualTo(1);
        assertThat(rows(key)).isEqualTo(1);
    }

    @Test
    void aKeyRedisLostIsReplayedFromTheDatabaseRowNotRunAgain() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = send(post("/charges", key, "{\"amount\":\"3\"}"));
        assertThat(first.statusCode()).isEqualTo(201);
        // A failover to a replica that never got the record, an eviction, a FLUSHALL: Redis forgets.
        Set<String> keys = redis.keys(PREFIX + "*");
        assertThat(keys).isNotEmpty();
        redis.delete(keys);
        HttpResponse<String> retry = send(post("/charges", key, "{\"amount\":\"3\"}"));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(HttpTestClient.replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(rows(key)).isEqualTo(1);
        // and the replay put the record back in Redis, so the next retry stops there
        assertThat(redis.keys(PREFIX + "*")).isNotEmpty();
    }

    @Test
    void aFailureAfterTheInsertRollsItBackAndReleasesTheKeyInBothStores() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> failed = send(post("/fail-after-insert", key, "{\"amount\":\"4\"}"));
        assertThat(failed.statusCode()).isEqualTo(503);
        assertThat(rows(key)).isZero();
        HttpResponse<String> retry = send(post("/fail-after-insert", key, "{\"amount\":\"4\"}"));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(HttpTestClient.replayed(retry)).isFalse();
        assertThat(rows(key)).isEqualTo(1);
    }
}

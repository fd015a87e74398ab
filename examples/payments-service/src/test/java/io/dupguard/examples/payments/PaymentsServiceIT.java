package io.dupguard.examples.payments;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
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
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The example service over real HTTP (Tomcat, java.net.http), PostgreSQL, Redis and RabbitMQ. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PaymentsServiceIT {
    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        r.add(
                "spring.datasource.url",
                () -> System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        r.add("spring.datasource.hikari.maximum-pool-size", () -> "40");
        // The payment ids start at 1 in every fresh database, while Redis is shared by every run:
        // keys of this run only, so an earlier run's stored credits are never replayed here.
        String run = Long.toString(System.nanoTime(), 36);
        r.add("dupguard.redis.idempotency-key-prefix", () -> "example:payments:" + run + ":idem:");
        r.add("dupguard.redis.lock-key-prefix", () -> "example:payments:" + run + ":lock:");
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    PaymentGateway gateway;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private HttpRequest pay(String client, String key, String account, String amount) {
        String password = client.equals("shop-a") ? "secret-a" : "secret-b";
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/payments"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header(
                        "Authorization",
                        "Basic "
                                + Base64.getEncoder()
                                        .encodeToString((client + ":" + password).getBytes(StandardCharsets.UTF_8)))
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"account\":\"" + account + "\",\"amount\":\"" + amount + "\"}"))
                .build();
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private int payments(String account) {
        return jdbc.queryForObject("select count(*) from example_payments where account = ?", Integer.class, account);
    }

    private BigDecimal balance(String account) {
        return jdbc.query(
                "select balance from example_accounts where id = ?",
                rs -> rs.next() ? rs.getBigDecimal(1) : BigDecimal.ZERO,
                account);
    }

    private int credits(String account) {
        return jdbc.queryForObject("select count(*) from example_credits where account = ?", Integer.class, account);
    }

    @Test
    void thirtyTwoConcurrentPostsWithOneKeyChargeOnceAndCreditOnce() throws Exception {
        String account = "acct-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            calls.add(http.sendAsync(pay("shop-a", key, account, "25.00"), HttpResponse.BodyHandlers.ofString()));
        }
        String body = null;
        int conflicts = 0;
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            HttpResponse<String> r = c.get();
            if (r.statusCode() == 409) {
                conflicts++;
                continue;
            }
            assertThat(r.statusCode()).isEqualTo(201);
            body = body == null ? r.body() : body;
            assertThat(r.body()).isEqualTo(body);
        }
        for (int i = 0; i < conflicts; i++) {
            HttpResponse<String> retry = Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> send(pay("shop-a", key, account, "25.00")), r -> r.statusCode() != 409);
            body = body == null ? retry.body() : body;
            assertThat(retry.body()).isEqualTo(body);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        }
        assertThat(payments(account)).isEqualTo(1);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> credits(account) == 1);
        assertThat(balance(account)).isEqualByComparingTo("25.00");
    }

    @Test
    void aDifferentBodyWithTheSameKeyIs422() throws Exception {
        String account = "acct-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        assertThat(send(pay("shop-a", key, account, "10.00")).statusCode()).isEqualTo(201);
        HttpResponse<String> other = send(pay("shop-a", key, account, "99.00"));
        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(other.body()).contains("key-reused");
        assertThat(payments(account)).isEqualTo(1);
    }

    @Test
    void twoClientsWithTheSameKeyMakeTwoIndependentPayments() throws Exception {
        String account = "acct-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        HttpResponse<String> a = send(pay("shop-a", key, account, "7.00"));
        HttpResponse<String> b = send(pay("shop-b", key, account, "7.00"));
        assertThat(a.statusCode()).isEqualTo(201);
        assertThat(b.statusCode()).isEqualTo(201);
        assertThat(b.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(b.body()).contains("\"client\":\"shop-b\"");
        assertThat(payments(account)).isEqualTo(2);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> credits(account) == 2);
        assertThat(balance(account)).isEqualByComparingTo("14.00");
    }

    @Test
    void aServerErrorLetsTheRetryRunAgain() throws Exception {
        String account = "acct-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        gateway.failNext(1);
        HttpResponse<String> failed = send(pay("shop-a", key, account, "3.00"));
        assertThat(failed.statusCode()).isEqualTo(502);
        assertThat(payments(account)).isZero();
        HttpResponse<String> retry = send(pay("shop-a", key, account, "3.00"));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(payments(account)).isEqualTo(1);
    }
}

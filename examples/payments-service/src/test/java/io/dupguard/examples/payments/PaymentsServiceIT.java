package io.dupguard.examples.payments;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The example service over real HTTP (Tomcat, java.net.http), PostgreSQL, Redis and RabbitMQ. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
// closed after the class: its 40-connection pool, listeners and workers are not left running
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class PaymentsServiceIT {
    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        r.add(
                "spring.datasource.url",
                () -> System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        // 32 concurrent requests, each holding a connection while the first also calls the gateway
        r.add("spring.datasource.hikari.maximum-pool-size", () -> "40");
        r.add("spring.datasource.hikari.minimum-idle", () -> "2");
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    PaymentGateway gateway;

    @Autowired
    RabbitTemplate rabbit;

    @Value("${payments.credits.queue}")
    String queue;

    private PaymentsClient client;

    @BeforeEach
    void client() {
        client = new PaymentsClient(port);
    }

    private HttpRequest pay(String who, String key, String account, String amount) {
        return client.pay(who, key, account, amount);
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return client.send(request);
    }

    private int payments(String account) {
        return jdbc.queryForObject(
                "select count(*) from example_payments_v2 where account = ?", Integer.class, account);
    }

    private BigDecimal balance(String account) {
        return jdbc.query(
                "select balance from example_accounts where id = ?",
                rs -> rs.next() ? rs.getBigDecimal(1) : BigDecimal.ZERO,
                account);
    }

    private int credits(String account) {
        return jdbc.queryForObject("select count(*) from example_credits_v2 where account = ?", Integer.class, account);
    }

    private int gatewayCalls(String client, String key) {
        return jdbc.query(
                "select calls from example_gateway_authorisations where auth_key = ?",
                rs -> rs.next() ? rs.getInt(1) : 0,
                PaymentController.reference(client, key).toString());
    }

    @Test
    void thirtyTwoConcurrentPostsWithOneKeyChargeOnceAndCreditOnce() throws Exception {
        String account = "acct-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            calls.add(client.http()
                    .sendAsync(pay("shop-a", key, account, "25.00"), HttpResponse.BodyHandlers.ofString()));
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
        assertThat(gatewayCalls("shop-a", key)).isEqualTo(1);
        assertThat(body).contains("\"reference\":\"" + PaymentController.reference("shop-a", key) + "\"");
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
    void aServerErrorLetsTheRetryRunAgainWithTheSameGatewayKey() throws Exception {
        String account = "acct-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        gateway.failNext(1);
        HttpResponse<String> failed = send(pay("shop-a", key, account, "3.00"));
        assertThat(failed.statusCode()).isEqualTo(502);
        assertThat(failed.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(failed.body()).contains("gateway-unavailable");
        assertThat(payments(account)).isZero();
        HttpResponse<String> retry = send(pay("shop-a", key, account, "3.00"));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(payments(account)).isEqualTo(1);
        assertThat(gatewayCalls("shop-a", key)).isEqualTo(1);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> credits(account) == 1);
    }

    @Test
    void anInvalidPaymentIsAProblem() throws Exception {
        String account = "acct-" + UUID.randomUUID();
        HttpResponse<String> r = send(pay("shop-a", UUID.randomUUID().toString(), account, "-1.00"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("invalid-payment").contains("\"status\":400");
        assertThat(payments(account)).isZero();
    }

    @Test
    void aMissingOrWrongPasswordIsAProblem() throws Exception {
        HttpResponse<String> none =
                send(client.request("/accounts/x", null).GET().build());
        HttpResponse<String> wrong = send(client.request("/accounts/x", null)
                .header("Authorization", "Basic c2hvcC1hOndyb25n") // shop-a:wrong
                .GET()
                .build());
        for (HttpResponse<String> r : List.of(none, wrong)) {
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"payments\"");
            assertThat(r.body()).contains("unauthenticated").contains("\"status\":401");
            assertThat(r.headers().firstValue("Set-Cookie")).as("no session").isEmpty();
        }
    }

    @Test
    void aMessageWithoutAKeyIsDeadLetteredOnceAndNeverCredited() throws Exception {
        String account = "acct-" + UUID.randomUUID();
        String marker = UUID.randomUUID().toString();
        MessageProperties props = new MessageProperties();
        props.setCorrelationId(marker); // no message-id
        rabbit.send("", queue, new Message(credit(marker, account), props));
        Message dead = DeadLetters.takeOne(
                rabbit,
                queue + ".dlq",
                m -> marker.equals(m.getMessageProperties().getCorrelationId()));
        assertThat(DeadLetters.deaths(dead)).isEqualTo(1);
        assertThat(credits(account)).isZero();
        assertThat(balance(account)).isEqualByComparingTo("0");
    }

    @Test
    void aPoisonMessageEndsInTheDeadLetterQueueAfterTheBoundedRetries() throws Exception {
        String marker = UUID.randomUUID().toString();
        MessageProperties props = new MessageProperties();
        props.setMessageId(marker);
        rabbit.send("", queue, new Message("not a credit".getBytes(StandardCharsets.UTF_8), props));
        Message dead = DeadLetters.takeOne(
                rabbit,
                queue + ".dlq",
                m -> marker.equals(m.getMessageProperties().getMessageId()));
        assertThat(DeadLetters.deaths(dead)).isEqualTo(1);
        assertThat(jdbc.queryForObject(
                        "select count(*) from example_credits_v2 where payment_ref = ?", Integer.class, marker))
                .isZero();
    }

    private static byte[] credit(String ref, String account) {
        return ("{\"paymentRef\":\"" + ref + "\",\"account\":\"" + account + "\",\"amount\":\"5.00\"}")
                .getBytes(StandardCharsets.UTF_8);
    }
}

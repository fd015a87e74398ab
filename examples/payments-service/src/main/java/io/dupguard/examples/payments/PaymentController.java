package io.dupguard.examples.payments;

import io.dupguard.retry.RetryLog;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.sql.Timestamp;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * POST /payments, made idempotent by dupguard's Idempotency-Key filter (application.properties),
 * which runs the whole request in one transaction: the key's claim, the payment row, the outbox
 * task and the stored response commit together, or not at all.
 */
@RestController
public class PaymentController {
    /** Base of the {@code type} URIs of this API's own problems. */
    public static final String PROBLEM_TYPE_BASE = "https://payments.example/problems/";

    private final JdbcTemplate jdbc;
    private final PaymentGateway gateway;
    private final RetryLog retries;
    private final JsonMapper json;

    public PaymentController(JdbcTemplate jdbc, PaymentGateway gateway, RetryLog retries, JsonMapper json) {
        this.jdbc = jdbc;
        this.gateway = gateway;
        this.retries = retries;
        this.json = json;
    }

    /**
     * The payment's reference: a name-based UUID of the client and its Idempotency-Key, so every
     * retry of one payment derives the same reference before anything runs (guarantee K8) — the key sent
     * to the card network, the payment row's unique column and the credit's message-id.
     *
     * @param client the authenticated client
     * @param idempotencyKey the Idempotency-Key header, as an sf-string ({@code "abc"}) or bare
     * @return the reference; the same for the same client and key
     */
    public static UUID reference(String client, String idempotencyKey) {
        String key = idempotencyKey.strip();
        if (key.length() >= 2 && key.startsWith("\"") && key.endsWith("\"")) {
            key = key.substring(1, key.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
        }
        return UUID.nameUUIDFromBytes((client + "\n" + key).getBytes(StandardCharsets.UTF_8));
    }

    @PostMapping("/payments")
    @Transactional
    public ResponseEntity<?> pay(
            @RequestHeader("Idempotency-Key") String key, @RequestBody PaymentRequest request, Principal client) {
        UUID ref = reference(client.getName(), key);
        if (request.account() == null
                || request.account().isBlank()
                || request.amount() == null
                || request.amount().signum() <= 0) {
            return ResponseEntity.of(problem(
                            HttpStatus.BAD_REQUEST,
                            "invalid-payment",
                            "Invalid payment",
                            "an account and a positive amount are required"))
                    .build();
        }
        gateway.authorise(ref); // commits on its own: the card network is another system
        CrashPoints.reach("after-gateway", ref.toString());
        Timestamp now = new Timestamp(System.currentTimeMillis());
        long id = jdbc.queryForObject(
                "insert into example_payments_v2 (payment_ref, client, account, amount, created_at)"
                        + " values (?, ?, ?, ?, ?) returning id",
                Long.class,
                ref.toString(),
                client.getName(),
                request.account(),
                request.amount(),
                now);
        CrashPoints.reach("after-insert", ref.toString());
        // The outbox: the publish is a task of this transaction, run by the retry log after the commit.
        Credit credit = new Credit(ref.toString(), request.account(), request.amount());
        retries.enqueue(CreditPublisher.TYPE, json.writeValueAsString(credit), ref.toString());
        CrashPoints.aroundCommit("before-commit", "after-commit", ref.toString());
        Payment payment = new Payment(id, ref, client.getName(), request.account(), request.amount(), now.toInstant());
        return ResponseEntity.created(URI.create("/payments/" + ref)).body(payment);
    }

    @GetMapping("/accounts/{account}")
    public Map<String, Object> account(@PathVariable String account) {
        BigDecimal balance = jdbc.query(
                "select balance from example_accounts where id = ?",
                rs -> rs.next() ? rs.getBigDecimal(1) : BigDecimal.ZERO,
                account);
        return Map.of("account", account, "balance", balance);
    }

    @ExceptionHandler(PaymentGateway.GatewayUnavailableException.class)
    public ResponseEntity<ProblemDetail> gatewayDown(PaymentGateway.GatewayUnavailableException e) {
        // A 5xx: the request's transaction rolls back and dupguard releases the key, so the client's
        // retry with the same key runs again (and sends the gateway the same reference).
        return ResponseEntity.of(problem(
                        HttpStatus.BAD_GATEWAY, "gateway-unavailable", "Card network unavailable", e.getMessage()))
                .build();
    }

    static ProblemDetail problem(HttpStatus status, String type, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create(PROBLEM_TYPE_BASE + type));
        problem.setTitle(title);
        return problem;
    }
}

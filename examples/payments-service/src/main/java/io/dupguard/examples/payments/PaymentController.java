package io.dupguard.examples.payments;

import java.math.BigDecimal;
import java.net.URI;
import java.security.Principal;
import java.sql.Timestamp;
import java.util.Map;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** POST /payments: made idempotent by dupguard's Idempotency-Key filter (application.properties). */
@RestController
public class PaymentController {
    private final JdbcTemplate jdbc;
    private final RabbitTemplate rabbit;
    private final PaymentGateway gateway;

    public PaymentController(JdbcTemplate jdbc, RabbitTemplate rabbit, PaymentGateway gateway) {
        this.jdbc = jdbc;
        this.rabbit = rabbit;
        this.gateway = gateway;
    }

    @PostMapping("/payments")
    public ResponseEntity<Payment> pay(@RequestBody PaymentRequest request, Principal client) {
        if (request.account() == null
                || request.amount() == null
                || request.amount().signum() <= 0) {
            return ResponseEntity.badRequest().build();
        }
        gateway.authorise(request);
        Timestamp now = new Timestamp(System.currentTimeMillis());
        long id = jdbc.queryForObject(
                "insert into example_payments (client, account, amount, created_at) values (?, ?, ?, ?) returning id",
                Long.class,
                client.getName(),
                request.account(),
                request.amount(),
                now);
        Payment payment = new Payment(id, client.getName(), request.account(), request.amount(), now.toInstant());
        rabbit.convertAndSend("", PaymentsApplication.CREDITS, request.account() + ":" + request.amount(), m -> {
            m.getMessageProperties().setMessageId("payment-" + id);
            return m;
        });
        return ResponseEntity.created(URI.create("/payments/" + id)).body(payment);
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
    public ResponseEntity<Map<String, String>> gatewayDown(PaymentGateway.GatewayUnavailableException e) {
        // A 5xx: dupguard releases the key, so the client's retry with the same key runs again.
        return ResponseEntity.status(HttpStatus.BAD_GATEWAY).body(Map.of("error", e.getMessage()));
    }
}

package io.dupguard.examples.payments;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A payments API: POST /payments is idempotent by its Idempotency-Key header (dupguard's filter,
 * scoped per authenticated client, the request one transaction); the card network is called with a
 * key derived from the client's; the credit is published after the commit through the retry log
 * (an outbox), and a deduplicated listener credits the account under a distributed lock, with a
 * fenced update; failing credits end in a dead-letter queue.
 */
@SpringBootApplication
public class PaymentsApplication {
    /** The default credits queue ({@code payments.credits.queue}). */
    public static final String CREDITS = "payments.credits.v2";

    public static void main(String[] args) {
        SpringApplication.run(PaymentsApplication.class, args);
    }
}

package io.dupguard.examples.payments;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Stands in for the card network: another system, which deduplicates authorisations by the key the
 * caller sends (as card networks and payment providers do with their idempotency keys) and counts
 * the calls. Its table, {@code example_gateway_authorisations}, holds one row per key.
 *
 * <p>Being another system, it commits on its own: each call runs in a new transaction ({@code
 * PROPAGATION_REQUIRES_NEW}), never in the request's, so an authorisation survives a rollback or a
 * crash of the caller — which is why the caller must send the same key again when it retries. The
 * new transaction takes a second pooled connection while the request's holds one.
 */
@Component
public class PaymentGateway {
    private final JdbcTemplate jdbc;
    private final TransactionTemplate ownTransaction;
    private final AtomicInteger failures = new AtomicInteger();

    public PaymentGateway(JdbcTemplate jdbc, PlatformTransactionManager transactions) {
        this.jdbc = jdbc;
        this.ownTransaction = new TransactionTemplate(transactions);
        this.ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    /** The next {@code n} authorisations fail with a transient error (tests, demos). */
    public void failNext(int n) {
        failures.set(n);
    }

    /**
     * Authorises the payment with this key: the first call creates the authorisation, a repeated
     * call with the same key finds it (and is counted).
     *
     * @param key the caller's idempotency key for this payment; the same on every retry
     * @throws GatewayUnavailableException on a transient failure (nothing authorised)
     */
    public void authorise(UUID key) {
        if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new GatewayUnavailableException("card network timed out");
        }
        ownTransaction.executeWithoutResult(status -> jdbc.update(
                """
                insert into example_gateway_authorisations (auth_key, calls, created_at) values (?, 1, now())
                on conflict (auth_key) do update set calls = example_gateway_authorisations.calls + 1
                """,
                key.toString()));
    }

    /** A transient failure: the API answers 502 and the client may retry with the same key. */
    public static class GatewayUnavailableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public GatewayUnavailableException(String message) {
            super(message);
        }
    }
}

package io.dupguard.examples.payments;

import com.zaxxer.hikari.HikariDataSource;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Stands in for the card network: another system, which deduplicates authorisations by the key the
 * caller sends (as card networks and payment providers do with their idempotency keys) and counts
 * the calls. Its table, {@code example_gateway_authorisations}, holds one row per key.
 *
 * <p>Being another system, it has connections of its own (a small pool on the same database, in
 * autocommit, outside every Spring transaction): an authorisation commits at once and survives a
 * rollback or a crash of the caller — which is why the caller must send the same key again when it
 * retries. Its own pool also keeps it from competing with the requests for the application's pool:
 * a request holds one of those for its whole transaction, and a second one taken from the same pool
 * (a {@code REQUIRES_NEW} transaction) deadlocks a busy pool until its connection timeout.
 */
@Component
public class PaymentGateway implements DisposableBean {
    private final HikariDataSource pool;
    private final JdbcTemplate jdbc;
    private final AtomicInteger failures = new AtomicInteger();

    public PaymentGateway(@Value("${spring.datasource.url}") String url) {
        this.pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        pool.setPoolName("card-network");
        pool.setMaximumPoolSize(8);
        pool.setMinimumIdle(1);
        this.jdbc = new JdbcTemplate(pool);
    }

    @Override
    public void destroy() {
        pool.close();
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
        jdbc.update(
                """
                insert into example_gateway_authorisations (auth_key, calls, created_at) values (?, 1, now())
                on conflict (auth_key) do update set calls = example_gateway_authorisations.calls + 1
                """,
                key.toString());
    }

    /** A transient failure: the API answers 502 and the client may retry with the same key. */
    public static class GatewayUnavailableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public GatewayUnavailableException(String message) {
            super(message);
        }
    }
}

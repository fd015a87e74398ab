package io.dupguard.examples.payments;

import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Component;

/** Stands in for the card network; can be told to fail transiently (tests, demos). */
@Component
public class PaymentGateway {
    private final AtomicInteger failures = new AtomicInteger();

    /** The next {@code n} authorisations fail with a transient error. */
    public void failNext(int n) {
        failures.set(n);
    }

    /** Authorises the amount, or throws a transient failure. */
    public void authorise(PaymentRequest request) {
        if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new GatewayUnavailableException("card network timed out");
        }
    }

    /** A transient failure: the API answers 502 and the client may retry with the same key. */
    public static class GatewayUnavailableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public GatewayUnavailableException(String message) {
            super(message);
        }
    }
}

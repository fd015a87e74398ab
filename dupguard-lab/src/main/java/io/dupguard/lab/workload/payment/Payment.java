package io.dupguard.lab.workload.payment;

import io.dupguard.lab.storm.Request;
import java.math.BigDecimal;

/**
 * "Charge this account this amount", identified by the client's request id (guarantee K1).
 *
 * @param requestId the idempotency key; at most one charge per id
 * @param account the account charged
 * @param amountCents the amount, in cents
 */
record Payment(String requestId, String account, long amountCents) implements Request {
    @Override
    public String key() {
        return requestId;
    }

    /** The amount as a plain decimal string, e.g. {@code 12.34}: stable, so fit for a fingerprint. */
    String amount() {
        return BigDecimal.valueOf(amountCents, 2).toPlainString();
    }
}

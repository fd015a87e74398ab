package io.dupguard.lab.workload.order;

import io.dupguard.lab.storm.Request;

/**
 * "Pay this order": the user presses Pay; double clicks, client retries and redeliveries repeat it.
 *
 * @param orderId the order, created READY before the request; the key
 * @param amountCents what the platform is asked to charge
 * @param script how the simulated payment platform treats this order's first charge call — the
 *     simulation's script, not something the service can see
 */
record Pay(String orderId, long amountCents, PlatformScript script) implements Request {
    @Override
    public String key() {
        return orderId;
    }
}

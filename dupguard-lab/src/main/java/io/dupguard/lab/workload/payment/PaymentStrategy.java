package io.dupguard.lab.workload.payment;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Service;

/** One way to take a payment; the payment workload runs each of them. */
interface PaymentStrategy extends AutoCloseable {

    /** What every strategy is built from. */
    record Context(LabEnvironment env, ChargeTable table, String tablePrefix) {}

    /**
     * Charges once per request id and returns the charge id; a duplicate must get the same id, a
     * tampered one (same id, different amount) must be refused.
     *
     * @param service call {@link Service#pause()} where the real code would be slow
     */
    long charge(Payment p, Service service) throws Exception;

    @Override
    default void close() {}
}

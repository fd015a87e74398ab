package io.dupguard.lab.workload.order;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Service;

/** One way to handle "pay this order"; the order-payment workload runs each of them. */
interface OrderStrategy {

    /** What every strategy is built from. */
    record Context(LabEnvironment env, OrderTable orders, PaymentPlatform platform, String tablePrefix) {}

    /**
     * Pays the order at most once and tells the user how it went. The same code serves the retry
     * job (SPEC R4). Throw {@link io.dupguard.lab.storm.Refused} for "already processing".
     *
     * @param service the platform call spends its pause
     */
    PayAnswer pay(Pay p, Service service) throws Exception;
}

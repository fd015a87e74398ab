package io.dupguard.lab.workload.order;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Service;

/** One way to handle "pay this order"; the order-payment workload runs each of them. */
interface OrderStrategy {

    /** What every strategy is built from. */
    record Context(LabEnvironment env, OrderTable orders, PaymentPlatform platform, String tablePrefix) {}

    /**
     * Pays the order at most once and tells the user how it went. The same code serves the retry
     * job (guarantee R4). Throw {@link io.dupguard.lab.storm.Refused} for "already processing".
     *
     * @param service the platform call spends its pause
     */
    PayAnswer pay(Pay p, Service service) throws Exception;

    /** Whether the strategy runs its own retry job ({@link #settle()}) instead of the workload's. */
    default boolean settlesItself() {
        return false;
    }

    /** Works off the strategy's own retry job after the storm. */
    default void settle() throws Exception {}

    /** The strategy's own invariants that broke, one line each. */
    default java.util.List<String> violations() {
        return java.util.List.of();
    }

    /** Stops what the strategy started (worker threads). */
    default void close() {}

    /** The strategy's own counts for the report. */
    default java.util.Map<String, Long> metrics() {
        return java.util.Map.of();
    }
}

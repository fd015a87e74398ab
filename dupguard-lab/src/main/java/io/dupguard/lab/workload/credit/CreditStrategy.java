package io.dupguard.lab.workload.credit;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Service;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** One way to credit an account; the account-credit workload runs each of them. */
interface CreditStrategy {
    /** The answer when the credit is in the balance. */
    String CREDITED = "CREDITED";
    /** The answer when it failed and will be retried; what it became is checked after the run. */
    String PENDING = "PENDING";

    /** What every strategy is built from; {@code credits} finds a logged credit by id. */
    record Context(LabEnvironment env, CreditTable table, String tablePrefix, Function<String, Credit> credits) {}

    /** Credits the account and answers {@link #CREDITED} or {@link #PENDING}. */
    String credit(Credit c, Service service) throws Exception;

    /** The retry job after the storm. */
    void settle() throws Exception;

    default void close() {}

    default List<String> violations(long permanentFailures) {
        return List.of();
    }

    default Map<String, Long> metrics() {
        return Map.of();
    }
}

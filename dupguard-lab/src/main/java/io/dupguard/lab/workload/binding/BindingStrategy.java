package io.dupguard.lab.workload.binding;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Service;

/** One way to bind an OpenID; the account-binding workload runs each of them. */
interface BindingStrategy {

    /** What every strategy is built from. */
    record Context(LabEnvironment env, AccountTable table, String tablePrefix) {}

    /**
     * Binds {@code b.openId()} once and returns its account id; a duplicate must get the same id.
     *
     * @param service call {@link Service#pause()} where the real code would be slow
     */
    long bind(Binding b, Service service) throws Exception;

    /** Whether the account table gets {@code UNIQUE(open_id)}. */
    default boolean uniqueOpenId() {
        return false;
    }
}

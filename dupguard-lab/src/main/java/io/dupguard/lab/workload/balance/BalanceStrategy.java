package io.dupguard.lab.workload.balance;

import io.dupguard.lab.env.LabEnvironment;

/** One way to make sure an account's balance row exists; the balance workload runs each of them. */
interface BalanceStrategy {

    /** What every strategy is built from. */
    record Context(LabEnvironment env, BalanceTable table, String tablePrefix) {}

    /**
     * Creates {@code b.account()}'s balance row unless it exists and returns its balance id; every
     * request for the account must get the same id. The first insert is slow ({@link SlowInserts}).
     *
     * @param balanceId the id to give the row if this call creates it, generated before the insert
     */
    String init(BalanceInit b, String balanceId) throws Exception;

    /** Whether the balance table gets {@code UNIQUE(account)}. */
    default boolean uniqueAccount() {
        return false;
    }
}

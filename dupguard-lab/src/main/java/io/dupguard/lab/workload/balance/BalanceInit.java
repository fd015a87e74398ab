package io.dupguard.lab.workload.balance;

import io.dupguard.lab.storm.Request;

/**
 * "Operate on this account", which needs its balance row: the first use of an account creates it
 * ({@code user_balance}, one row per user).
 *
 * @param requestId the logical request; attempts and duplicates share it
 * @param account the account whose balance row must exist exactly once
 * @param currency the balance's currency; a row with the same account and another currency is a
 *     conflict (guarantee K3)
 */
record BalanceInit(String requestId, String account, String currency) implements Request {
    @Override
    public String key() {
        return requestId;
    }
}

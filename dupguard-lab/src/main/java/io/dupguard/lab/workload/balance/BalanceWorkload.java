package io.dupguard.lab.workload.balance;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Chart;
import io.dupguard.lab.storm.Effects;
import io.dupguard.lab.storm.Request;
import io.dupguard.lab.storm.Sent;
import io.dupguard.lab.storm.Service;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.StrategyCatalog;
import io.dupguard.lab.storm.StrategyResult;
import io.dupguard.lab.storm.Trial;
import io.dupguard.lab.storm.Workload;
import io.dupguard.lab.workload.balance.BalanceStrategies.WithCreateOnce;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Seed 000 (guarantees K2, K3, L6, L8): an account's balance row is created on its first use. Every
 * {@value #USES_PER_ACCOUNT} consecutive requests of the storm use the same fresh account, so
 * different requests — not only retries — reach a missing row at once. The checker counts rows
 * per account, answers that are not the account's row, and requests that were refused although
 * nothing was wrong with them.
 */
public final class BalanceWorkload implements Workload {
    public static final String NAME = "balance-init";

    private static final String LOCK_DOUBLE_CHECK = "lock-double-check";

    /** Requests in a row that share one account: its concurrent first uses. */
    static final int USES_PER_ACCOUNT = 4;

    private static final String[] CURRENCIES = {"CNY", "USD", "EUR"};

    /**
     * The metric: attempts of genuine requests (not tampered duplicates) that were refused, in the
     * same unit as the table's {@code attempts refused}, which also counts the tampered ones.
     */
    static final String GENUINE_ATTEMPTS_REFUSED = "genuineAttemptsRefused";

    /**
     * The naive strategies fail in three ways: duplicate rows, refusals of genuine requests (the
     * retry locks) and errors (the unique violation that surfaces); a chart of duplicate effects
     * alone would show the last two like dupguard's 0.
     */
    private static final List<Chart> CHARTS = List.of(new Chart(
            "failures",
            "Failures per strategy: duplicate effects, refused genuine attempts, attempts failed with an error",
            List.of(
                    new Chart.Series("duplicate effects", StrategyResult.DUPLICATE_EFFECTS),
                    new Chart.Series("genuine attempts refused", GENUINE_ATTEMPTS_REFUSED),
                    new Chart.Series("attempts failed with an error", StrategyResult.ERRORS))));

    private static final StrategyCatalog<BalanceStrategy.Context, BalanceStrategy> CATALOG = new StrategyCatalog<
                    BalanceStrategy.Context, BalanceStrategy>()
            .add(
                    Strategy.naive("select-then-insert", "SELECT the account's row, INSERT if absent; no unique index"),
                    BalanceStrategies.SelectThenInsert::new)
            .add(
                    Strategy.naive(
                            "unique-key-no-reread",
                            "naive scheme 1: the same on UNIQUE(account); the violation surfaces, no currency check"),
                    BalanceStrategies.UniqueKeyNoReread::new)
            .add(
                    Strategy.naive("retry-lock", "naive scheme 5: try-lock 6 x 5 ms, then fail; no unique index"),
                    RetryLockStrategy::retryLock)
            .add(
                    Strategy.naive("retry-lock-requery", "naive scheme 6: scheme 5, re-SELECT before failing"),
                    RetryLockStrategy::retryLockRequery)
            .add(
                    Strategy.dupguard(
                            LOCK_DOUBLE_CHECK,
                            "CreateOnce LOCK_DOUBLE_CHECK (scheme 4, L8): check, lock, check, insert; renewed lease"),
                    WithCreateOnce::lockDoubleCheck)
            .add(
                    Strategy.dupguard(
                            "insert-if-absent",
                            "CreateOnce INSERT_IF_ABSENT (scheme 3, K2/K3): UNIQUE(account), insert-if-absent, re-read"),
                    WithCreateOnce::insertIfAbsent);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "create an account's balance row on first use, " + USES_PER_ACCOUNT
                + " requests at once per account (naive schemes 1-6, K2/K3/L6/L8)";
    }

    @Override
    public List<Chart> charts() {
        return CHARTS;
    }

    @Override
    public List<Strategy> strategies() {
        return CATALOG.strategies();
    }

    /**
     * Every strategy but {@code lock-double-check}: the balance rows, unique key and lock rows live
     * in the database, and the row is the effect and its own record (an insert the crash cut off is
     * rolled back; one that committed is found by the retry).
     */
    /** The unique key decides, no lease. */
    @Override
    public boolean survivesStallsPastLeases(Strategy strategy) {
        return strategy.name().equals("insert-if-absent");
    }

    @Override
    public boolean sharedByInstances(Strategy strategy) {
        return !strategy.name().equals(LOCK_DOUBLE_CHECK);
    }

    @Override
    public String notSharedBecause(Strategy strategy) {
        return "CreateOnce takes its lock with the library's default 30 s watchdog lease, so a lock the dead"
                + " instance held blocks its account for 30 s, longer than a storm: not run";
    }

    @Override
    public Trial open(Strategy strategy, LabEnvironment env) throws Exception {
        String name = "dupguard_lab_balance_" + strategy.name().replace('-', '_');
        BalanceTable table = new BalanceTable(env, name);
        BalanceStrategy impl = CATALOG.create(strategy, new BalanceStrategy.Context(env, table, name + "_"));
        table.recreate(impl.uniqueAccount());
        return new BalanceTrial(table, impl, new AtomicLong());
    }

    static String currencyOf(long account) {
        return CURRENCIES[(int) (account % CURRENCIES.length)];
    }

    private record BalanceTrial(BalanceTable table, BalanceStrategy strategy, AtomicLong uses) implements Trial {
        @Override
        public Request newRequest(int client, long seq, SplittableRandom random) {
            // Which account is scheduling's choice: the next few requests, from any clients, share it.
            long account = uses.getAndIncrement() / USES_PER_ACCOUNT;
            return new BalanceInit(
                    String.format("req-%03d-%07d", client, seq),
                    String.format("acct-%07d", account),
                    currencyOf(account));
        }

        @Override
        public Request tamper(Request original, SplittableRandom random) {
            BalanceInit b = (BalanceInit) original;
            long account = Long.parseLong(b.account().substring("acct-".length()));
            return new BalanceInit(b.requestId(), b.account(), currencyOf(account + 1 + random.nextInt(2)));
        }

        @Override
        public Object serve(Request request, Service service) throws Exception {
            // The id is generated before the insert (K8); each attempt draws its own, as a service would.
            String balanceId = "bal-"
                    + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
            return SlowInserts.during(service, () -> strategy.init((BalanceInit) request, balanceId));
        }

        @Override
        public Effects check(List<Sent> ledger) throws SQLException {
            Map<String, List<BalanceTable.Row>> byAccount = table.rows().stream()
                    .collect(Collectors.groupingBy(BalanceTable.Row::account, LinkedHashMap::new, Collectors.toList()));
            long duplicates = 0;
            long tampered = 0;
            String evidence = "";
            for (List<BalanceTable.Row> rows : byAccount.values()) {
                String currency =
                        currencyOf(Long.parseLong(rows.get(0).account().substring("acct-".length())));
                long genuine =
                        rows.stream().filter(r -> r.currency().equals(currency)).count();
                duplicates += Math.max(0, genuine - 1);
                tampered += rows.size() - genuine;
                if (evidence.isEmpty() && rows.size() > 1) {
                    evidence = describe(rows);
                }
            }
            long lost = 0;
            long refusedAttempts = 0;
            long refusedRequests = 0;
            for (Sent sent : ledger) {
                BalanceInit b = (BalanceInit) sent.request();
                List<BalanceTable.Row> rows = byAccount.getOrDefault(b.account(), List.of());
                if (sent.acknowledged()
                        && rows.stream()
                                .noneMatch(r -> r.currency().equals(b.currency())
                                        && r.balanceId().equals(sent.response()))) {
                    lost++;
                }
                refusedAttempts += sent.refusals();
                if (sent.refusals() > 0) {
                    refusedRequests++;
                }
            }
            List<String> violations = refusedAttempts == 0
                    ? List.of()
                    : List.of(refusedAttempts + " attempts of " + refusedRequests + " genuine requests refused"
                            + " (lock not acquired in time), although nothing was wrong with them");
            return new Effects(
                    duplicates,
                    lost,
                    tampered,
                    evidence,
                    violations,
                    Map.of(GENUINE_ATTEMPTS_REFUSED, refusedAttempts));
        }

        private String describe(List<BalanceTable.Row> rows) {
            long first = rows.stream()
                    .mapToLong(BalanceTable.Row::createdAtMillis)
                    .min()
                    .orElse(0);
            long last = rows.stream()
                    .mapToLong(BalanceTable.Row::createdAtMillis)
                    .max()
                    .orElse(0);
            return "account " + rows.get(0).account() + " has " + rows.size() + " balance rows in " + table.name
                    + ": ids " + rows.stream().map(r -> Long.toString(r.id())).collect(Collectors.joining(", "))
                    + ", created " + (last - first) + " ms apart";
        }
    }
}

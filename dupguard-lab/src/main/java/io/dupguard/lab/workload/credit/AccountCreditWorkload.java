package io.dupguard.lab.workload.credit;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Effects;
import io.dupguard.lab.storm.Request;
import io.dupguard.lab.storm.Sent;
import io.dupguard.lab.storm.Service;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.StrategyCatalog;
import io.dupguard.lab.storm.Trial;
import io.dupguard.lab.storm.Workload;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Seed 002 §6.2 (guarantees E2, O4, R1–R4): deposits to 16 accounts; some attempts fail before writing,
 * some lose their answer after the write committed, a few can never succeed. Failures go to a retry
 * log that is worked off after the storm. The checker: every balance equals the sum of the
 * distinct credits applied to it, no credit applied twice, every credit that can succeed applied
 * once, and (dupguard) each one that cannot is blocked with an alert.
 */
public final class AccountCreditWorkload implements Workload {
    public static final String NAME = "account-credit";

    private static final StrategyCatalog<CreditStrategy.Context, CreditStrategy> CATALOG = new StrategyCatalog<
                    CreditStrategy.Context, CreditStrategy>()
            .add(
                    Strategy.naive(
                            "increment-replayed",
                            "amount = amount + x, no lock, no marker; failures logged and the same increment replayed"),
                    CreditStrategies.IncrementReplayed::new)
            .add(
                    Strategy.dupguard(
                            "lock-cas-retry-log",
                            "blocking account lock, processed marker, absolute CAS + marker + completion in one"
                                    + " transaction; failures to dupguard's RetryLog, blocked with an alert at max attempts"),
                    CreditStrategies.LockCasRetryLog::new)
            .add(
                    Strategy.dupguard(
                            "dedup-table",
                            "guarantee E4: lock on the credit id, processed-marker check, dedup-table insert + marker +"
                                    + " increment rolled back together; failures to the RetryLog"),
                    CreditStrategies.LockCasRetryLog::dedupTable);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "credit accounts through failures and retries; balance = sum of unique credits (E2)";
    }

    /** Runs with {@code --workload all} or by name. */
    @Override
    public boolean inDefaultRun() {
        return false;
    }

    @Override
    public List<Strategy> strategies() {
        return CATALOG.strategies();
    }

    /** Not under {@code instance-crash}: see {@link #notSharedBecause}. */
    @Override
    public String notSharedBecause(Strategy strategy) {
        return "its account locks take the library's default 30 s watchdog lease (5 s wait), so a lock the dead"
                + " instance held refuses that account's credits for the rest of a storm, and each instance's"
                + " retry workers resolve credits and their scripted failures from that instance's memory: not run";
    }

    @Override
    public Trial open(Strategy strategy, LabEnvironment env) throws Exception {
        String name = "dupguard_lab_credit_" + strategy.name().replace('-', '_');
        CreditTable table = new CreditTable(env, name);
        table.recreate();
        Map<String, Credit> requests = new ConcurrentHashMap<>();
        CreditStrategy impl =
                CATALOG.create(strategy, new CreditStrategy.Context(env, table, name + "_", requests::get));
        return new CreditTrial(table, impl, requests);
    }

    private record CreditTrial(CreditTable table, CreditStrategy strategy, Map<String, Credit> requests)
            implements Trial {
        @Override
        public Request newRequest(int client, long seq, SplittableRandom random) {
            Credit c = new Credit(
                    String.format("crd-%03d-%07d", client, seq),
                    CreditTable.account(random.nextInt(CreditTable.ACCOUNTS)),
                    1 + random.nextLong(10_000),
                    Credit.Fault.draw(random.nextDouble()));
            requests.put(c.creditId(), c);
            return c;
        }

        @Override
        public Object serve(Request request, Service service) throws Exception {
            return strategy.credit((Credit) request, service);
        }

        /** PENDING is provisional either way: it never contradicts what the credit became. */
        @Override
        public boolean answersAgree(Object first, Object later) {
            return CreditStrategy.PENDING.equals(first) || CreditStrategy.PENDING.equals(later) || first.equals(later);
        }

        @Override
        public void settle() throws Exception {
            strategy.settle();
        }

        @Override
        public void close() {
            strategy.close();
        }

        @Override
        public Effects check(List<Sent> ledger) throws SQLException {
            Map<String, Long> applications = table.applications();
            Map<String, Long> balances = table.balances();
            Map<String, Long> unique = table.uniqueCredits();
            long duplicates = 0;
            long twice = 0;
            String evidence = "";
            for (Map.Entry<String, Long> e : applications.entrySet()) {
                if (e.getValue() > 1) {
                    duplicates += e.getValue() - 1;
                    twice++;
                    if (evidence.isEmpty()) {
                        Credit c = requests.get(e.getKey());
                        evidence = "credit " + e.getKey() + " (" + c.amountCents() + " cents, " + c.fault()
                                + ") applied " + e.getValue() + " times to " + c.account();
                    }
                }
            }
            long offBalance = balances.entrySet().stream()
                    .filter(b -> !b.getValue().equals(unique.getOrDefault(b.getKey(), 0L)))
                    .count();
            long neverApplied = 0;
            long permanent = 0;
            long appliedImpossible = 0;
            for (Credit c : requests.values()) {
                boolean applied = applications.containsKey(c.creditId());
                if (c.fault() == Credit.Fault.ALWAYS_FAILS) {
                    permanent++;
                    appliedImpossible += applied ? 1 : 0;
                } else if (!applied) {
                    neverApplied++;
                }
            }
            long lost = 0;
            for (Sent sent : ledger) {
                if (sent.acknowledged()
                        && CreditStrategy.CREDITED.equals(sent.response())
                        && !applications.containsKey(sent.request().key())) {
                    lost++;
                }
            }
            List<String> violations = new ArrayList<>();
            if (offBalance > 0) {
                violations.add(offBalance + " accounts whose balance is not the sum of their unique credits");
            }
            if (neverApplied > 0) {
                violations.add(neverApplied + " credits that could succeed were never applied");
            }
            if (appliedImpossible > 0) {
                violations.add(appliedImpossible + " credits applied although every attempt failed");
            }
            violations.addAll(strategy.violations(permanent));
            Map<String, Long> metrics = new LinkedHashMap<>();
            metrics.put("creditsAppliedTwice", twice);
            metrics.put("accountsOffBalance", offBalance);
            metrics.put("creditsNeverApplied", neverApplied);
            metrics.put("permanentFailures", permanent);
            metrics.putAll(strategy.metrics());
            return new Effects(duplicates, lost, 0, evidence, violations, metrics);
        }
    }
}

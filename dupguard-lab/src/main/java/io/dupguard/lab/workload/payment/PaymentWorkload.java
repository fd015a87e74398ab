package io.dupguard.lab.workload.payment;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Effects;
import io.dupguard.lab.storm.Need;
import io.dupguard.lab.storm.Request;
import io.dupguard.lab.storm.Sent;
import io.dupguard.lab.storm.Service;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.StrategyCatalog;
import io.dupguard.lab.storm.Trial;
import io.dupguard.lab.storm.Workload;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * Payments keyed by a client request id (guarantees K1–K4): retries and double sends carry the same
 * amount and must charge once and answer with the same charge; a few tampered duplicates reuse an
 * acknowledged request id with another amount and must be refused, never charged.
 */
public final class PaymentWorkload implements Workload {
    public static final String NAME = "payment";

    private static final StrategyCatalog<PaymentStrategy.Context, PaymentStrategy> CATALOG = new StrategyCatalog<
                    PaymentStrategy.Context, PaymentStrategy>()
            .add(Strategy.naive("none", "INSERT a charge for every attempt"), PaymentStrategies.None::new)
            .add(
                    Strategy.naive("select-then-insert", "SELECT by request id, then INSERT if absent"),
                    PaymentStrategies.SelectThenInsert::new)
            .add(
                    Strategy.naive(
                            "replica-check",
                            "SELECT by request id on the standby, INSERT on the primary if absent (K7)",
                            Need.REPLICA),
                    PaymentStrategies.ReplicaCheck::new)
            .add(
                    Strategy.dupguard("idempotency-memory", "dupguard Idempotency, in-memory store"),
                    PaymentStrategies.IdempotencyOver::memory)
            .add(
                    Strategy.dupguard("idempotency-jdbc", "dupguard Idempotency, JDBC store"),
                    PaymentStrategies.IdempotencyOver::jdbc)
            .add(
                    Strategy.dupguard(
                            "idempotency-jdbc-tx",
                            "JdbcTransactionalIdempotency: charge row and record in one transaction"),
                    PaymentStrategies.Transactional::new)
            .add(
                    Strategy.dupguard("idempotency-redis", "dupguard Idempotency, Redis store", Need.REDIS),
                    PaymentStrategies.IdempotencyOver::redis)
            .add(
                    Strategy.dupguard(
                            "idempotency-redis-backstop",
                            "Redis in front, the JDBC row in the charge's transaction deciding (the starter's"
                                    + " backstop mode)",
                            Need.REDIS),
                    PaymentStrategies.Backstop::new);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "charge once per request id; tampered duplicates refused (K1-K4)";
    }

    @Override
    public List<Strategy> strategies() {
        return CATALOG.strategies();
    }

    /** All but the in-memory store, which two instances cannot share. */
    @Override
    public boolean sharedByInstances(Strategy strategy) {
        return !strategy.name().equals("idempotency-memory");
    }

    @Override
    public String notSharedBecause(Strategy strategy) {
        return "the in-memory store lives in one JVM: a second instance cannot share it";
    }

    /**
     * {@code Idempotency} over a store of its own commits the charge, then the record: an instance
     * that dies between the two leaves a claim that is taken over after its lease, and the charge
     * runs again. Only the transactional mode commits both together.
     */
    @Override
    public boolean effectCommitsWithRecord(Strategy strategy) {
        return !strategy.name().equals("idempotency-jdbc") && !strategy.name().equals("idempotency-redis");
    }

    /** The backstop: the JDBC row that commits with the charge decides; Redis only rejects and replays fast. */
    @Override
    public boolean decidedByDatabaseBehindRedis(Strategy strategy) {
        return strategy.name().equals("idempotency-redis-backstop");
    }

    /** The transactional mode: the charge and the record commit together, no lease guards them. */
    @Override
    public boolean survivesStallsPastLeases(Strategy strategy) {
        return strategy.name().equals("idempotency-jdbc-tx");
    }

    /** The charge's only later write is the completion, which {@code Idempotency} retries within the lease. */
    @Override
    public boolean survivesKilledConnections(Strategy strategy) {
        return true;
    }

    @Override
    public Trial open(Strategy strategy, LabEnvironment env) throws Exception {
        String table = "dupguard_lab_charge_" + strategy.name().replace('-', '_');
        ChargeTable charges = new ChargeTable(env, table);
        charges.recreate();
        return new PaymentTrial(
                charges, CATALOG.create(strategy, new PaymentStrategy.Context(env, charges, table + "_")));
    }

    private record PaymentTrial(ChargeTable table, PaymentStrategy strategy) implements Trial {
        @Override
        public Request newRequest(int client, long seq, SplittableRandom random) {
            return new Payment(
                    String.format("req-%03d-%07d", client, seq),
                    "acct-" + random.nextInt(1000),
                    100 + random.nextLong(100_000));
        }

        @Override
        public Request tamper(Request original, SplittableRandom random) {
            Payment p = (Payment) original;
            return new Payment(p.requestId(), p.account(), p.amountCents() + 1 + random.nextLong(1000));
        }

        @Override
        public Object serve(Request request, Service service) throws Exception {
            return strategy.charge((Payment) request, service);
        }

        @Override
        public Effects check(List<Sent> ledger) throws SQLException {
            Map<String, List<ChargeTable.Row>> byRequest =
                    table.rows().stream().collect(Collectors.groupingBy(ChargeTable.Row::requestId));
            long duplicates = 0;
            long tampered = 0;
            long lost = 0;
            String evidence = "";
            for (Sent sent : ledger) {
                Payment p = (Payment) sent.request();
                List<ChargeTable.Row> rows = byRequest.getOrDefault(p.requestId(), List.of());
                List<ChargeTable.Row> genuine = rows.stream()
                        .filter(r -> r.amountCents() == p.amountCents())
                        .collect(Collectors.toList());
                duplicates += Math.max(0, genuine.size() - 1);
                tampered += rows.size() - genuine.size();
                if (sent.acknowledged()
                        && genuine.stream().noneMatch(r -> sent.response().equals(r.id()))) {
                    lost++;
                }
                if (evidence.isEmpty() && rows.size() > 1) {
                    evidence = describe(p, rows);
                }
            }
            return new Effects(duplicates, lost, tampered, evidence);
        }

        private String describe(Payment p, List<ChargeTable.Row> rows) {
            String charges = rows.stream()
                    .map(r -> "id " + r.id() + " for "
                            + new Payment(p.requestId(), p.account(), r.amountCents()).amount()
                            + (r.amountCents() == p.amountCents() ? "" : " (tampered)"))
                    .collect(Collectors.joining(", "));
            long spread = rows.stream()
                            .mapToLong(ChargeTable.Row::createdAtMillis)
                            .max()
                            .orElse(0)
                    - rows.stream()
                            .mapToLong(ChargeTable.Row::createdAtMillis)
                            .min()
                            .orElse(0);
            return "request " + p.requestId() + " charged " + rows.size() + " times in " + table.name + ": " + charges
                    + ", " + spread + " ms apart";
        }

        @Override
        public void close() {
            strategy.close();
        }
    }
}

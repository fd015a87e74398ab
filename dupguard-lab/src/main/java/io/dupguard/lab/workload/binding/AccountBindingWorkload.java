package io.dupguard.lab.workload.binding;

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
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * Seed 003 (guarantees F1, E3): on every app start the client binds the account's OpenID to the device;
 * the server looks the OpenID up and inserts it if absent. Client timeouts and retries made about
 * 3 % of OpenIDs appear twice or more, with the same creation time and consecutive ids. The
 * checker counts rows per OpenID in the table itself.
 */
public final class AccountBindingWorkload implements Workload {
    public static final String NAME = "account-binding";

    private static final StrategyCatalog<BindingStrategy.Context, BindingStrategy> CATALOG = new StrategyCatalog<
                    BindingStrategy.Context, BindingStrategy>()
            .add(
                    Strategy.naive("select-then-insert", "SELECT by open_id, then INSERT if absent; no unique index"),
                    BindingStrategies.SelectThenInsert::new)
            .add(
                    Strategy.dupguard(
                            "unique-key-catch",
                            "the same code on UNIQUE(open_id); a unique violation re-SELECTs (K2, K5)"),
                    BindingStrategies.UniqueKeyCatch::new)
            .add(
                    Strategy.dupguard(
                            "insert-ignore-reread",
                            "UNIQUE(open_id); INSERT ... ON CONFLICT DO NOTHING, then SELECT (K2)"),
                    BindingStrategies.InsertIgnoreReread::new)
            .add(
                    Strategy.dupguard(
                            "lock",
                            "dupguard LockProvider on 'bind:<open_id>' around select-then-insert; no unique index"),
                    BindingStrategies.LockAround::new)
            .add(
                    Strategy.dupguard(
                            "idempotency",
                            "dupguard Idempotency keyed by open_id (JDBC store) around select-then-insert; no unique index"),
                    BindingStrategies.IdempotencyAround::new);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "bind an OpenID to a device on every app start (F1, E3; ~3% duplicate OpenIDs)";
    }

    @Override
    public List<Strategy> strategies() {
        return CATALOG.strategies();
    }

    /** Every strategy keeps its state in the database. */
    @Override
    public boolean sharedByInstances(Strategy strategy) {
        return true;
    }

    @Override
    public Trial open(Strategy strategy, LabEnvironment env) throws Exception {
        String table = "dupguard_lab_account_" + strategy.name().replace('-', '_');
        AccountTable accounts = new AccountTable(env, table);
        BindingStrategy impl = CATALOG.create(strategy, new BindingStrategy.Context(env, accounts, table + "_"));
        accounts.recreate(impl.uniqueOpenId());
        return new BindingTrial(accounts, impl);
    }

    private record BindingTrial(AccountTable table, BindingStrategy strategy) implements Trial {
        @Override
        public Request newRequest(int client, long seq, SplittableRandom random) {
            return new Binding(
                    String.format("oid-%03d-%07d", client, seq),
                    "dev-" + HexFormat.of().toHexDigits(random.nextInt()));
        }

        @Override
        public Object serve(Request request, Service service) throws Exception {
            return strategy.bind((Binding) request, service);
        }

        @Override
        public Effects check(List<Sent> ledger) throws SQLException {
            long duplicates = table.duplicateRows();
            Map<String, List<AccountTable.Row>> byOpenId = table.rows().stream()
                    .collect(Collectors.groupingBy(AccountTable.Row::openId, LinkedHashMap::new, Collectors.toList()));
            long lost = 0;
            for (Sent sent : ledger) {
                List<AccountTable.Row> rows = byOpenId.get(sent.request().key());
                if (sent.acknowledged()
                        && (rows == null || rows.stream().noneMatch(r -> Objects.equals(r.id(), sent.response())))) {
                    lost++;
                }
            }
            return new Effects(duplicates, lost, 0, evidence(byOpenId));
        }

        /** The largest duplicate group, described the way an operator notices it. */
        private String evidence(Map<String, List<AccountTable.Row>> byOpenId) {
            return byOpenId.values().stream()
                    .filter(rows -> rows.size() > 1)
                    .max(Comparator.<List<AccountTable.Row>>comparingInt(List::size)
                            .thenComparing(rows -> -rows.get(0).id()))
                    .map(rows -> {
                        long spread = rows.stream()
                                        .mapToLong(AccountTable.Row::createdAtMillis)
                                        .max()
                                        .orElse(0)
                                - rows.stream()
                                        .mapToLong(AccountTable.Row::createdAtMillis)
                                        .min()
                                        .orElse(0);
                        String ids =
                                rows.stream().map(r -> Long.toString(r.id())).collect(Collectors.joining(", "));
                        return "open_id " + rows.get(0).openId() + " has " + rows.size() + " rows in " + table.name
                                + ": ids " + ids + ", created " + spread + " ms apart";
                    })
                    .orElse("");
        }
    }
}

package io.dupguard.lab.workload.balance;

import io.dupguard.jdbc.CreateOnce;
import io.dupguard.jdbc.RowConflictException;
import io.dupguard.lab.storm.Refused;
import io.dupguard.lock.LockProvider;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;

/**
 * The strategies of the balance workload: naive schemes 1 and 2 (5 and 6 are {@link
 * RetryLockStrategy}), then dupguard's CreateOnce.
 */
final class BalanceStrategies {
    /** Seed 000 scheme 5: "retry at most 6 times, 5 ms apart". */
    static final int RETRIES = 6;

    static final Duration RETRY_INTERVAL = Duration.ofMillis(5);

    private BalanceStrategies() {}

    /**
     * Seed 000 scheme 1 without the unique key it assumes: select, insert if absent. Concurrent
     * first uses all insert.
     */
    static final class SelectThenInsert implements BalanceStrategy {
        private final BalanceTable table;

        SelectThenInsert(Context ctx) {
            this.table = ctx.table();
        }

        @Override
        public String init(BalanceInit b, String balanceId) throws SQLException {
            BalanceTable.Row row = table.find(b.account());
            if (row != null) {
                return row.balanceId(); // another currency goes unnoticed (K3)
            }
            table.insert(b, balanceId);
            return balanceId;
        }
    }

    /**
     * Seed 000 scheme 1 as written: the same code on {@code UNIQUE(account)}, without catching the
     * violation or re-reading. No second row, but a concurrent first use fails with the unique
     * violation (the seed: "concurrency hits the unique-key exception"), and an existing row is
     * returned without checking its currency.
     */
    static final class UniqueKeyNoReread implements BalanceStrategy {
        private final SelectThenInsert code;

        UniqueKeyNoReread(Context ctx) {
            this.code = new SelectThenInsert(ctx);
        }

        @Override
        public boolean uniqueAccount() {
            return true;
        }

        @Override
        public String init(BalanceInit b, String balanceId) throws SQLException {
            return code.init(b, balanceId);
        }
    }

    /**
     * dupguard's {@link CreateOnce} with one of its strategies: insert-if-absent on the unique key
     * and re-read (K2), or check, lock, check, insert on a table without one (L8), with the lab's
     * {@link io.dupguard.jdbc.JdbcLockProvider}. Every strategy verifies the currency of an
     * existing row (K3): a conflict is refused.
     */
    static final class WithCreateOnce implements BalanceStrategy {
        private final CreateOnce.Strategy strategy;
        private final CreateOnce create;

        private WithCreateOnce(Context ctx, CreateOnce.Strategy strategy) throws SQLException {
            this.strategy = strategy;
            CreateOnce.Builder b = CreateOnce.builder(ctx.table().dataSource, ctx.table().name)
                    .keyColumns("account")
                    .verifiedColumns("currency");
            if (strategy != CreateOnce.Strategy.INSERT_IF_ABSENT) {
                LockProvider locks = ctx.env().newLockProvider(ctx.tablePrefix() + "locks");
                b.strategy(strategy, locks);
            }
            this.create = b.build();
        }

        static WithCreateOnce insertIfAbsent(Context ctx) throws SQLException {
            return new WithCreateOnce(ctx, CreateOnce.Strategy.INSERT_IF_ABSENT);
        }

        static WithCreateOnce lockDoubleCheck(Context ctx) throws SQLException {
            return new WithCreateOnce(ctx, CreateOnce.Strategy.LOCK_DOUBLE_CHECK);
        }

        @Override
        public boolean uniqueAccount() {
            return strategy == CreateOnce.Strategy.INSERT_IF_ABSENT;
        }

        @Override
        public String init(BalanceInit b, String balanceId) {
            CreateOnce.Result r;
            try {
                r = create.create(Map.of(
                        "account", b.account(), "currency", b.currency(), "balance_id", balanceId, "amount_cents", 0L));
            } catch (RowConflictException e) {
                throw new Refused(e.getMessage());
            }
            return r.created() ? balanceId : String.valueOf(r.row().get("balance_id"));
        }
    }
}

package io.dupguard.lab.workload.balance;

import static io.dupguard.lab.workload.balance.BalanceStrategies.RETRIES;
import static io.dupguard.lab.workload.balance.BalanceStrategies.RETRY_INTERVAL;

import io.dupguard.lab.storm.Refused;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockProvider;
import io.dupguard.lock.LockUnavailableException;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * Seed 000 schemes 5 and 6 (L6), naive: on a table without a unique key, try the lock {@value
 * BalanceStrategies#RETRIES} times {@link BalanceStrategies#RETRY_INTERVAL} apart; holding it, check
 * and insert. If the lock never came, fail (scheme 5) or {@code SELECT} once more and return the row
 * the holder has usually created by then (scheme 6). Only as safe as the lock. An existing row of
 * another currency is refused (K3), as dupguard's {@code CreateOnce} would.
 */
final class RetryLockStrategy implements BalanceStrategy {
    private final BalanceTable table;
    private final LockProvider locks;
    private final boolean requery;

    private RetryLockStrategy(Context ctx, boolean requery) throws SQLException {
        this.table = ctx.table();
        this.locks = ctx.env().newLockProvider(ctx.tablePrefix() + "locks");
        this.requery = requery;
    }

    static RetryLockStrategy retryLock(Context ctx) throws SQLException {
        return new RetryLockStrategy(ctx, false);
    }

    static RetryLockStrategy retryLockRequery(Context ctx) throws SQLException {
        return new RetryLockStrategy(ctx, true);
    }

    @Override
    public String init(BalanceInit b, String balanceId) throws SQLException {
        String name = table.name + ":" + b.account();
        for (int attempt = 0; attempt < RETRIES; attempt++) {
            Optional<Lease> lease = locks.tryAcquire(name);
            if (lease.isPresent()) {
                try {
                    BalanceTable.Row row = table.find(b.account());
                    if (row != null) {
                        return existing(b, row);
                    }
                    table.insert(b, balanceId);
                    return balanceId;
                } finally {
                    lease.get().close();
                }
            }
            if (attempt + 1 < RETRIES) {
                LockSupport.parkNanos(RETRY_INTERVAL.toNanos());
            }
        }
        if (requery) {
            BalanceTable.Row row = table.find(b.account());
            if (row != null) {
                return existing(b, row);
            }
        }
        throw new LockUnavailableException(name, RETRY_INTERVAL.multipliedBy(RETRIES));
    }

    private String existing(BalanceInit b, BalanceTable.Row row) {
        if (!row.currency().equals(b.currency())) {
            throw new Refused("a row with key " + b.account() + " already exists in " + table.name
                    + " with a different currency");
        }
        return row.balanceId();
    }
}

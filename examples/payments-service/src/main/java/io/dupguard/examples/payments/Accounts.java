package io.dupguard.examples.payments;

import io.dupguard.lock.Lease;
import io.dupguard.spring.annotation.DistributedLock;
import io.dupguard.spring.annotation.DistributedLocks;
import java.math.BigDecimal;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/** Account balances, updated one holder at a time per account and fenced against stale holders. */
@Service
public class Accounts {
    private final JdbcTemplate jdbc;

    public Accounts(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @DistributedLock(name = "'account:' + #account", waitTime = "10s")
    public void credit(String account, BigDecimal amount, String paymentRef) {
        Lease lease = DistributedLocks.currentLease();
        jdbc.update(
                "insert into example_accounts (id, balance, fence) values (?, 0, 0) on conflict (id) do nothing",
                account);
        // Fenced write: a holder whose lease ran out (GC pause) carries a lower token and changes nothing.
        int updated = jdbc.update(
                "update example_accounts set balance = balance + ?, fence = ? where id = ? and fence < ?",
                amount,
                lease.fencingToken(),
                account,
                lease.fencingToken());
        if (updated == 0) {
            throw new IllegalStateException("stale lock holder for " + account + " (fencing token "
                    + lease.fencingToken() + "); the credit " + paymentRef + " will be redelivered");
        }
        jdbc.update(
                "insert into example_credits (account, amount, payment_ref) values (?, ?, ?)",
                account,
                amount,
                paymentRef);
    }
}

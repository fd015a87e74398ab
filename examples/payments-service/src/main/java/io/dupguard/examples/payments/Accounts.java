package io.dupguard.examples.payments;

import io.dupguard.lock.Lease;
import io.dupguard.spring.annotation.DistributedLock;
import io.dupguard.spring.annotation.DistributedLocks;
import java.math.BigDecimal;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Account balances, updated one holder at a time per account and fenced against stale holders.
 *
 * <p>A credit's writes are one transaction ({@code @Transactional}, which joins the transaction the
 * listener's dedup opens): the credit row, unique per payment reference, and the balance commit
 * together or not at all. The lock has a fixed 5 s lease, so an instance that crashed while holding
 * it frees the account within 5 s; a holder paused past its lease is refused by the fence.
 */
@Service
public class Accounts {
    private final JdbcTemplate jdbc;

    public Accounts(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @DistributedLock(name = "'account:' + #account", waitTime = "10s", leaseTime = "5s")
    @Transactional
    public void credit(String account, BigDecimal amount, String paymentRef) {
        Lease lease = DistributedLocks.currentLease();
        // Unique per payment: a second credit of one payment fails here and rolls back whole.
        jdbc.update(
                "insert into example_credits_v2 (account, amount, payment_ref) values (?, ?, ?)",
                account,
                amount,
                paymentRef);
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
        CrashPoints.aroundCommit("listener-before-commit", "listener-after-commit", paymentRef);
    }
}

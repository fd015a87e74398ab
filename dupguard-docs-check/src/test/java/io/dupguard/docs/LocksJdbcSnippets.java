package io.dupguard.docs;

import static io.dupguard.docs.DocFixtures.ACCOUNTS;

import io.dupguard.jdbc.Fence;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.Optional;
import javax.sql.DataSource;

/** The snippets of docs/locks-jdbc.md. */
class LocksJdbcSnippets {

    static void overview(
            DataSource dataSource, Connection connection, long accountId, BigDecimal newBalance, long orderId)
            throws SQLException {
        // tag::overview[]
        JdbcLockProvider locks = JdbcLockProvider.builder(dataSource)   // a plain pool, e.g. HikariCP
                .createSchemaIfMissing(true)                             // or run the shipped DDL yourself
                .build();

        try (Lease lease = locks.acquire("account:" + accountId, LockOptions.ofDefaults())) {
            // fenced write: refused if a newer holder of this lock has written the row since
            boolean written = ACCOUNTS.update(connection, accountId, lease.fencingToken(),
                    "balance = ?", newBalance);
        }

        Optional<Lease> lease = locks.tryAcquire("order:" + orderId);   // fail fast: "already processing"
        // end::overview[]
    }

    /** A field and a statement: the statement is a field initializer here, the variables are fields before it. */
    static class FencedWrite {
        Connection connection;
        long accountId;
        Lease lease;
        BigDecimal newBalance;
        Timestamp now;

        FencedWrite() throws SQLException {}

        // tag::fence[]
        static final Fence ACCOUNTS = Fence.on("accounts", "id", "fence");   // identifiers validated once

        boolean written = ACCOUNTS.update(connection, accountId, lease.fencingToken(),
                "balance = ?, updated_at = ?", newBalance, now);
        // end::fence[]
    }
}

package io.dupguard.lab.workload.binding;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jdbc.UniqueViolation;
import io.dupguard.lab.storm.Service;
import io.dupguard.lab.workload.LabIdempotency;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;

/** The strategies of the account-binding workload, from naive code to dupguard. */
final class BindingStrategies {
    private BindingStrategies() {}

    /**
     * The naive code: look the OpenID up, and insert if absent. Two attempts that both look before
     * either inserts both insert (F1).
     */
    static long selectThenInsert(AccountTable table, Binding b, Service service) throws SQLException {
        Long id = table.findId(b.openId());
        if (id != null) {
            return id;
        }
        service.pause();
        return table.insert(b);
    }

    /** {@link #selectThenInsert} on a table without a unique index: the classic duplicate-OpenID failure. */
    static final class SelectThenInsert implements BindingStrategy {
        private final AccountTable table;

        SelectThenInsert(Context ctx) {
            this.table = ctx.table();
        }

        @Override
        public long bind(Binding b, Service service) throws SQLException {
            return selectThenInsert(table, b, service);
        }
    }

    /** The usual first fix: the same code on {@code UNIQUE(open_id)}; the loser re-reads (K2, K5). */
    static final class UniqueKeyCatch implements BindingStrategy {
        private final AccountTable table;

        UniqueKeyCatch(Context ctx) {
            this.table = ctx.table();
        }

        @Override
        public boolean uniqueOpenId() {
            return true;
        }

        @Override
        public long bind(Binding b, Service service) throws SQLException {
            try {
                return selectThenInsert(table, b, service);
            } catch (SQLException e) {
                if (!UniqueViolation.test(e)) {
                    throw e; // NOT NULL, FK, outages: never read as "duplicate" (K5)
                }
                return reread(table, b);
            }
        }
    }

    /** Insert-if-absent in one statement, then read whichever row won (K2). */
    static final class InsertIgnoreReread implements BindingStrategy {
        private final AccountTable table;

        InsertIgnoreReread(Context ctx) {
            this.table = ctx.table();
        }

        @Override
        public boolean uniqueOpenId() {
            return true;
        }

        @Override
        public long bind(Binding b, Service service) throws SQLException {
            service.pause();
            table.insertIgnore(b);
            return reread(table, b);
        }
    }

    /**
     * The usual second fix: a distributed lock named after the OpenID around the unchanged
     * select-then-insert, on the table without a unique index. Duplicates wait for the holder
     * instead of being discarded, so they answer with the holder's id. Unlike a fixed 3 s
     * expiry, the lease is renewed while the holder lives (L5): a stalled holder keeps its lock.
     */
    static final class LockAround implements BindingStrategy {
        private static final LockOptions OPTIONS = LockOptions.custom()
                .watchdog(LabIdempotency.LEASE)
                .waitTime(Duration.ofSeconds(10))
                .build();
        private final AccountTable table;
        private final LockProvider locks;

        LockAround(Context ctx) throws SQLException {
            this.table = ctx.table();
            this.locks = ctx.env().newLockProvider(ctx.tablePrefix() + "locks");
        }

        @Override
        public long bind(Binding b, Service service) throws SQLException {
            Lease lease = locks.acquire("bind:" + b.openId(), OPTIONS);
            try {
                return selectThenInsert(table, b, service);
            } finally {
                lease.close(); // releases only if still ours (L3), unlike a plain DEL
            }
        }
    }

    /**
     * dupguard idempotency keyed by the OpenID over the JDBC store, around the unchanged
     * select-then-insert on the table without a unique index: dupguard alone keeps it single.
     */
    static final class IdempotencyAround implements BindingStrategy {
        private final AccountTable table;
        private final Idempotency idempotency;

        IdempotencyAround(Context ctx) throws SQLException {
            this.table = ctx.table();
            this.idempotency = Idempotency.of(
                    LabIdempotency.freshJdbcStore(ctx.env(), ctx.tablePrefix() + "idem"), LabIdempotency.CONFIG);
        }

        @Override
        public long bind(Binding b, Service service) throws SQLException {
            return idempotency
                    .execute(
                            IdempotencyKey.of(AccountBindingWorkload.NAME, b.openId()),
                            Fingerprint.ofFields(Map.of("localId", b.localId())),
                            Long.class,
                            () -> selectThenInsert(table, b, service))
                    .value();
        }
    }

    private static long reread(AccountTable table, Binding b) throws SQLException {
        Long id = table.findId(b.openId());
        if (id == null) {
            throw new IllegalStateException("no row for " + b.openId() + " right after inserting it");
        }
        return id;
    }
}

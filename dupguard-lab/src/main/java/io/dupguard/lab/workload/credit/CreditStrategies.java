package io.dupguard.lab.workload.credit;

import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.lab.storm.Service;
import io.dupguard.lab.workload.LabRetries;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.retry.RetryConfig;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.RetrySchedule;
import io.dupguard.retry.RetryStats;
import io.dupguard.retry.RunResult;
import io.dupguard.retry.TaskContext;
import io.dupguard.retry.TaskOptions;
import io.dupguard.retry.TaskState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** The strategies of the account-credit workload (guarantees E2, O4, R1–R4). */
final class CreditStrategies {
    private static final Service NO_PAUSE = () -> {};

    private CreditStrategies() {}

    /**
     * The classic mistake: {@code amount = amount + x}, no lock, no marker; a failure is
     * logged and the retry job replays the same increment — twice for a credit whose first write
     * committed but whose answer was lost, and every client retry adds it again.
     */
    static final class IncrementReplayed implements CreditStrategy {
        private final CreditTable table;
        private final java.util.function.Function<String, Credit> credits;

        IncrementReplayed(Context ctx) {
            this.table = ctx.table();
            this.credits = ctx.credits();
        }

        @Override
        public String credit(Credit c, Service service) throws Exception {
            int n = table.attempt(c);
            if (CreditTable.failsBeforeWrite(c, n)) {
                table.logRetry(c);
                return PENDING;
            }
            try (Connection conn = table.dataSource.getConnection()) {
                conn.setAutoCommit(false);
                service.pause();
                try (PreparedStatement ps = conn.prepareStatement(
                        "UPDATE " + table.name + " SET amount_cents = amount_cents + ? WHERE id = ?")) {
                    ps.setLong(1, c.amountCents());
                    ps.setString(2, c.account());
                    ps.executeUpdate();
                }
                table.audit(conn, c);
                conn.commit();
            }
            if (CreditTable.answerLost(c, n)) {
                table.logRetry(c); // the service saw a timeout: it logs a retry of the same increment
                return PENDING;
            }
            return CREDITED;
        }

        @Override
        public void settle() throws Exception {
            for (int round = 0; round < 3; round++) {
                for (String id : table.retries()) {
                    if (credit(credits.apply(id), NO_PAUSE).equals(CREDITED)) {
                        table.retried(id);
                    }
                }
            }
        }
    }

    /**
     * guarantee E2 with dupguard: blocking lock on the account, a processed marker per credit, read the
     * balance, absolute CAS ({@code SET amount = new WHERE amount = old}, O4) with the marker and the
     * task's completion in one transaction; every failure goes to the retry log, whose workers run
     * the same handler on a stepped schedule and block the credit with an alert at max attempts.
     */
    static final class LockCasRetryLog implements CreditStrategy {
        static final String TYPE = "account.credit";
        private final boolean dedupTable;
        private final CreditTable table;
        private final LockProvider locks;
        private final JdbcRetryStore store;
        private final RetryLog retries;
        private final ThreadLocal<Service> pause = new ThreadLocal<>();
        private final AtomicLong alerts = new AtomicLong();
        private final AtomicLong casConflicts = new AtomicLong();

        LockCasRetryLog(Context ctx) throws SQLException {
            this(ctx, false);
        }

        /**
         * guarantee E4 instead: the lock is on the credit's unique id, and the credit is a dedup-table insert
         * (unique credit id) + processed marker + balance update rolled back together — a replay fails
         * on the unique key and changes nothing.
         */
        static LockCasRetryLog dedupTable(Context ctx) throws SQLException {
            return new LockCasRetryLog(ctx, true);
        }

        private LockCasRetryLog(Context ctx, boolean dedupTable) throws SQLException {
            this.dedupTable = dedupTable;
            this.table = ctx.table();
            this.locks = ctx.env().newLockProvider(ctx.tablePrefix() + "locks");
            String tasks = ctx.tablePrefix() + "tasks";
            try (Connection c = table.dataSource.getConnection();
                    Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + tasks);
            }
            this.store = JdbcRetryStore.builder(table.dataSource)
                    .tableName(tasks)
                    .createSchemaIfMissing(true)
                    .build();
            this.retries = RetryLog.builder(store)
                    .handler(
                            TYPE,
                            task -> {
                                Service s = pause.get();
                                apply(decode(task.payloadText()), task, s == null ? NO_PAUSE : s);
                            },
                            TaskOptions.custom()
                                    .schedule(RetrySchedule.steppedBuilder()
                                            .steps(Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(40))
                                            .maxAttempts(4)
                                            .build())
                                    .moneyRelated(false)
                                    .build())
                    .config(RetryConfig.custom()
                            .workers(2)
                            .pollInterval(Duration.ofMillis(100))
                            .alertSink(a -> {
                                if (a.blocked()) {
                                    alerts.incrementAndGet();
                                }
                            })
                            .build())
                    .build()
                    .start();
        }

        private Lease lock(String account) {
            return locks.acquire(
                    "account:" + account,
                    LockOptions.custom().waitTime(Duration.ofSeconds(5)).build());
        }

        /** The one handler (R4): marker check, read, CAS and marker in one transaction. */
        private String lockName(Credit c) {
            return dedupTable ? "credit:" + c.creditId() : "account:" + c.account();
        }

        private void apply(Credit c, TaskContext task, Service service) throws Exception {
            try (Lease held = lock(lockName(c))) {
                int n = table.attempt(c);
                if (CreditTable.failsBeforeWrite(c, n)) {
                    throw new IOException("ledger database timed out (fencing token " + held.fencingToken() + ")");
                }
                try (Connection conn = table.dataSource.getConnection()) {
                    conn.setAutoCommit(false);
                    try {
                        if (dedupTable) {
                            if (!processed(conn, c)) {
                                service.pause();
                                table.dedupInsert(conn, c); // a replay fails here on the unique key
                                markProcessed(conn, c);
                                increment(conn, c);
                                table.audit(conn, c);
                            }
                        } else if (!processed(conn, c)) {
                            service.pause();
                            long old = table.balance(conn, c.account());
                            if (!cas(conn, c, old)) {
                                casConflicts.incrementAndGet();
                                throw new IllegalStateException(
                                        "balance of " + c.account() + " changed under its lock");
                            }
                            markProcessed(conn, c);
                            table.audit(conn, c);
                        }
                        task.completeInTransaction(conn);
                        conn.commit();
                    } catch (Exception e) {
                        conn.rollback();
                        throw e;
                    }
                }
                if (CreditTable.answerLost(c, n)) {
                    throw new IOException("answer lost after the commit");
                }
            }
        }

        /** Safe here only because the unique dedup row commits or rolls back with it (E4). */
        private void increment(Connection conn, Credit c) throws SQLException {
            try (PreparedStatement ps = conn.prepareStatement(
                    "UPDATE " + table.name + " SET amount_cents = amount_cents + ? WHERE id = ?")) {
                ps.setLong(1, c.amountCents());
                ps.setString(2, c.account());
                ps.executeUpdate();
            }
        }

        private boolean processed(Connection conn, Credit c) throws SQLException {
            try (PreparedStatement ps = conn.prepareStatement("SELECT 1 FROM " + table.done + " WHERE credit_id = ?")) {
                ps.setString(1, c.creditId());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        }

        private boolean cas(Connection conn, Credit c, long old) throws SQLException {
            try (PreparedStatement ps = conn.prepareStatement(
                    "UPDATE " + table.name + " SET amount_cents = ? WHERE id = ? AND amount_cents = ?")) {
                ps.setLong(1, old + c.amountCents());
                ps.setString(2, c.account());
                ps.setLong(3, old);
                return ps.executeUpdate() == 1;
            }
        }

        private void markProcessed(Connection conn, Credit c) throws SQLException {
            try (PreparedStatement ps =
                    conn.prepareStatement("INSERT INTO " + table.done + " (credit_id) VALUES (?)")) {
                ps.setString(1, c.creditId());
                ps.executeUpdate();
            }
        }

        /** Holds the account lock across the inline run and the answer (the handler's lock is reentrant). */
        @Override
        public String credit(Credit c, Service service) throws Exception {
            Lease held = lock(lockName(c));
            try {
                RunResult r;
                pause.set(service);
                try {
                    r = retries.run(TYPE, encode(c).getBytes(StandardCharsets.UTF_8), c.creditId());
                } finally {
                    pause.remove();
                }
                if (r.failure() != null && !(r.failure() instanceof IOException)) {
                    throw (Exception) r.failure();
                }
                return r.outcome() == RunResult.Outcome.SUCCEEDED ? CREDITED : PENDING;
            } finally {
                held.close();
            }
        }

        @Override
        public void settle() {
            LabRetries.drainThenClose(store, TYPE, retries);
        }

        @Override
        public void close() {
            retries.close();
        }

        @Override
        public List<String> violations(long permanentFailures) {
            RetryStats s = store.stats();
            List<String> out = new ArrayList<>();
            long open = LabRetries.open(store, TYPE);
            if (open > 0) {
                out.add(open + " retry tasks still PENDING or RUNNING after the retry job");
            }
            long blocked = s.count(TYPE, TaskState.BLOCKED);
            if (blocked != alerts.get() || blocked != permanentFailures) {
                out.add(blocked + " blocked retry tasks, " + alerts.get() + " alerts, " + permanentFailures
                        + " credits that can never succeed: all three must be equal");
            }
            return out;
        }

        @Override
        public Map<String, Long> metrics() {
            RetryStats s = store.stats();
            Map<String, Long> m = new LinkedHashMap<>();
            m.put("retryTasksSucceeded", s.count(TYPE, TaskState.SUCCEEDED));
            m.put("retryTasksBlocked", s.count(TYPE, TaskState.BLOCKED));
            m.put("alerts", alerts.get());
            m.put("casConflicts", casConflicts.get());
            return m;
        }
    }

    static String encode(Credit c) {
        return c.creditId() + "|" + c.account() + "|" + c.amountCents() + "|"
                + c.fault().name();
    }

    static Credit decode(String payload) {
        String[] f = payload.split("\\|");
        return new Credit(f[0], f[1], Long.parseLong(f[2]), Credit.Fault.valueOf(f[3]));
    }
}

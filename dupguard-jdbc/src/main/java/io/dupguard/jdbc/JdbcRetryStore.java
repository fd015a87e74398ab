package io.dupguard.jdbc;

import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.internal.Checks;
import io.dupguard.retry.ClaimedTask;
import io.dupguard.retry.Enqueued;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.RetryStats;
import io.dupguard.retry.RetryStore;
import io.dupguard.retry.RetryTask;
import io.dupguard.retry.TaskPage;
import io.dupguard.retry.TaskState;
import io.dupguard.retry.UnknownTaskException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * {@link RetryStore} on a SQL table (PostgreSQL 12+, MariaDB 10.6+ / MySQL 8, H2 2.x): one row per
 * task; times are the <b>database's</b> clock.
 *
 * <ol>
 *   <li>Enqueue inserts a PENDING row due now, with the caller's dedup key unique per type
 *       (PostgreSQL {@code ON CONFLICT DO NOTHING}; elsewhere only a unique violation means "exists",
 *       guarantee K5) and re-reads the existing row's id. {@link #enqueue(Connection, NewTask)} does so in
 *       the caller's transaction (the outbox rule, R5).
 *   <li>Claim takes the earliest due rows with {@code FOR UPDATE SKIP LOCKED} — PENDING rows whose
 *       time has come and RUNNING rows whose lease ended (a crashed worker's) — and sets them
 *       RUNNING with owner, {@code runs + 1} and a lease: one {@code UPDATE … WHERE id IN (SELECT …
 *       SKIP LOCKED) RETURNING} on PostgreSQL; a locking read and an update in one READ COMMITTED
 *       transaction on MariaDB/MySQL and H2. Finished rows have no due time, so the scan of the due
 *       index reads only the batch it returns.
 *   <li>Every write of a worker is one {@code UPDATE … WHERE id = ? AND state = 'R' AND owner = ? AND
 *       runs = ?}: zero rows means the claim was taken over, reported as {@link LeaseLostException}.
 *       {@link #completeInTransaction} runs the same guarded update on the handler's connection.
 *   <li>On PostgreSQL the enqueue statement also calls {@code pg_notify}; a listener connection
 *       wakes the workers of this JVM when any process enqueues. Enqueues through this store wake
 *       them in-process on every database; polling stays the fallback.
 *   <li>Purging deletes SUCCEEDED rows past their retention in bounded batches; workers never lock
 *       those rows, so purging never waits for them nor they for it.
 * </ol>
 *
 * <p>Every {@link SQLException} surfaces as {@link StoreUnavailableException}, except a write the
 * server refuses as read-only: {@link io.dupguard.ReadOnlyStoreException}, as on a replica or
 * standby, which the store also refuses before its first statement (guarantee K7). Thread-safe.
 */
public final class JdbcRetryStore implements RetryStore {
    /** Default table name. */
    public static final String DEFAULT_TABLE = "dupguard_retry_tasks";

    private static final int ATTEMPTS = JdbcAccess.TRANSIENT_ATTEMPTS;

    private final JdbcAccess access;
    private final boolean listen;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile RetrySql sql;
    private final Object listenLock = new Object();
    private PgNotifications notifications; // guarded by listenLock

    private JdbcRetryStore(Builder b) {
        this.access = b.access();
        this.listen = b.listen;
    }

    /**
     * A store on {@code dataSource} with the defaults (table {@value #DEFAULT_TABLE}, detected
     * dialect).
     *
     * @param dataSource the database; not null
     * @return a thread-safe store
     */
    public static JdbcRetryStore create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A builder: table name, dialect and schema creation (off by default) can be set.
     *
     * @param dataSource the application's data source
     * @return a new builder
     * @throws NullPointerException if {@code dataSource} is null
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * The task table's name.
     *
     * @return the table name; never null
     */
    public String tableName() {
        return access.table();
    }

    /**
     * The dialect in use, detecting it if needed.
     *
     * @return the dialect; never null
     * @throws StoreUnavailableException if the database cannot be reached
     */
    public SqlDialect dialect() {
        return sql().dialect;
    }

    @Override
    public Enqueued enqueue(NewTask task) {
        Objects.requireNonNull(task, "task");
        Enqueued e = access.withConnection(
                "enqueue retry task", task.type(), c -> RetryWrites.insert(c, sql(c), task, 0, null));
        if (e.created()) {
            wakeLocal();
        }
        return e;
    }

    /**
     * Records {@code task} in the caller's open transaction on {@code connection} (guarantee R5): it
     * commits with the caller's own writes or not at all, and workers run it after the commit. Never
     * commits, rolls back or changes the connection's settings. A task of the same type with the same
     * dedup key is returned instead of recording another.
     *
     * @param connection a connection to this store's database inside the caller's open transaction;
     *     not null
     * @param task the task to record; not null
     * @return the task's id and whether it was recorded now or existed already; never null
     * @throws StoreUnavailableException if a statement fails (the caller should roll back)
     */
    public Enqueued enqueue(Connection connection, NewTask task) {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(task, "task");
        RetrySql s = sql();
        Enqueued e;
        try {
            e = RetryWrites.insert(connection, s, task, 0, null);
        } catch (SQLException ex) {
            throw access.failure("enqueue retry task", task.type(), ex);
        }
        // PostgreSQL's notification arrives at commit; elsewhere wake now and let the workers poll
        // briefly, since the row becomes visible only when the caller commits.
        if (e.created() && s.dialect != SqlDialect.POSTGRESQL) {
            wakeLocal();
        }
        return e;
    }

    /**
     * {@link #enqueue(Connection, NewTask)} of a new task; {@code dedupKey} may be null.
     *
     * @param connection a connection to this store's database inside the caller's open transaction;
     *     not null
     * @param type the task type; a valid identifier, not null
     * @param payload the handler's input; not null, at most {@value NewTask#MAX_PAYLOAD_BYTES}
     *     bytes
     * @param dedupKey the business operation's key, or null for no de-duplication
     * @return the task's id and whether it was recorded now or existed already; never null
     */
    public Enqueued enqueue(Connection connection, String type, byte[] payload, String dedupKey) {
        return enqueue(connection, NewTask.of(type, payload, dedupKey));
    }

    @Override
    public Enqueued recordFailure(NewTask task, Duration retryDelay, String error) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(error, "error");
        return access.withConnection(
                "record failed retry task",
                task.type(),
                c -> RetryWrites.insert(c, sql(c), task, retryDelay == null ? -1 : Checks.millis(retryDelay), error));
    }

    @Override
    public List<ClaimedTask> claim(String owner, int max, Duration lease) {
        Objects.requireNonNull(owner, "owner");
        Checks.atLeast(max, 1, "max");
        long leaseMillis = Checks.millis(Checks.positive(lease, "lease"));
        RetrySql s = sql();
        if (access.sharded()) {
            // PostgreSQL: one update per shard, each committing on its own. In one transaction a
            // claim would hold one shard's rows while waiting for another's, and two claims doing
            // so in opposite order deadlock across databases, where no server sees the cycle.
            // MariaDB's locking read skips locked rows and never waits; its update follows in the
            // same transaction.
            return access.withConnectionRetryingTransient(
                    "claim retry tasks",
                    null,
                    c -> s.dialect == SqlDialect.POSTGRESQL
                            ? RetryWrites.claimCandidates(c, s, owner, max, leaseMillis)
                            : ReadCommitted.run(
                                    c,
                                    s.dialect,
                                    true,
                                    () -> RetryWrites.claimCandidates(c, s, owner, max, leaseMillis)),
                    ATTEMPTS);
        }
        if (s.dialect == SqlDialect.POSTGRESQL) {
            return access.withConnectionRetryingTransient(
                    "claim retry tasks",
                    null,
                    c -> {
                        try (PreparedStatement ps = c.prepareStatement(s.claim)) {
                            ps.setString(1, owner);
                            ps.setLong(2, leaseMillis);
                            ps.setInt(3, max);
                            return RetryWrites.readClaims(ps, s, owner, 0);
                        }
                    },
                    ATTEMPTS);
        }
        return access.withConnectionRetryingTransient(
                "claim retry tasks",
                null,
                c -> ReadCommitted.run(c, s.dialect, () -> RetryWrites.lockAndMark(c, s, owner, max, leaseMillis)),
                ATTEMPTS);
    }

    @Override
    public void succeed(ClaimedTask task) {
        guarded("complete retry task", task, TaskState.SUCCEEDED, null, 0);
    }

    /**
     * One guarded UPDATE per owner for the whole batch; on PostgreSQL it returns the ids it changed,
     * elsewhere a short count re-reads the rows to tell which claims were refused.
     */
    @Override
    public List<ClaimedTask> succeedAll(List<ClaimedTask> tasks) {
        if (tasks.isEmpty()) {
            return List.of();
        }
        Map<String, List<ClaimedTask>> byOwner = new LinkedHashMap<>();
        tasks.forEach(
                t -> byOwner.computeIfAbsent(t.owner(), o -> new ArrayList<>()).add(t));
        List<ClaimedTask> refused = new ArrayList<>();
        if (access.sharded()) {
            // Task by task: each guarded update reaches its task's shard, and its count is its own.
            for (ClaimedTask t : tasks) {
                try {
                    succeed(t);
                } catch (LeaseLostException e) {
                    refused.add(t);
                }
            }
            return refused;
        }
        for (Map.Entry<String, List<ClaimedTask>> e : byOwner.entrySet()) {
            refused.addAll(access.withConnectionRetryingTransient(
                    "complete retry tasks",
                    null,
                    c -> RetryWrites.succeedAll(c, sql(c), e.getKey(), e.getValue()),
                    ATTEMPTS));
        }
        return refused;
    }

    @Override
    public void retryLater(ClaimedTask task, Duration delay, String error) {
        guarded(
                "reschedule retry task",
                task,
                TaskState.PENDING,
                Objects.requireNonNull(error, "error"),
                Checks.millis(Checks.notNegative(delay, "delay")));
    }

    @Override
    public void block(ClaimedTask task, String error) {
        guarded("block retry task", task, TaskState.BLOCKED, Objects.requireNonNull(error, "error"), 0);
    }

    /** RUNNING → {@code to}, guarded by owner and run count; binds (delay), (error), then the guard. */
    private void guarded(String operation, ClaimedTask task, TaskState to, String error, long delayMillis) {
        int rows = access.withConnectionRetryingTransient(
                operation,
                task.id(),
                c -> {
                    RetrySql s = sql(c);
                    String statement =
                            switch (to) {
                                case SUCCEEDED -> s.succeed;
                                case PENDING -> s.retryLater;
                                default -> s.block;
                            };
                    try (PreparedStatement ps = c.prepareStatement(statement)) {
                        int i = 1;
                        if (to == TaskState.PENDING) {
                            ps.setLong(i++, delayMillis);
                        }
                        if (error != null) {
                            ps.setString(i++, error);
                        }
                        bindGuard(ps, i, task, s);
                        return ps.executeUpdate();
                    }
                },
                ATTEMPTS);
        if (rows == 0) {
            throw leaseLost(task);
        }
    }

    private static void bindGuard(PreparedStatement ps, int from, ClaimedTask task, RetrySql s) throws SQLException {
        ps.setLong(from, task.id());
        ps.setString(from + 1, task.taskKey());
        JdbcText.bind(ps, from + 2, task.owner(), s.dialect);
        ps.setInt(from + 3, task.runs());
    }

    private static LeaseLostException leaseLost(ClaimedTask task) {
        return new LeaseLostException(
                "task " + task.id(),
                "retry task " + task.id() + " run " + task.runs() + " is no longer " + task.owner()
                        + "'s: its lease ended and another worker claimed it");
    }

    @Override
    public void completeInTransaction(Connection connection, ClaimedTask task) {
        Objects.requireNonNull(connection, "connection");
        RetrySql s = sql();
        int rows;
        try (PreparedStatement ps = connection.prepareStatement(s.succeed)) {
            bindGuard(ps, 1, task, s);
            rows = ps.executeUpdate();
        } catch (SQLException e) {
            throw access.failure("complete retry task", task.id(), e);
        }
        if (rows == 0) {
            throw leaseLost(task);
        }
    }

    @Override
    public int extendLeases(String owner, Collection<ClaimedTask> tasks, Duration lease) {
        if (tasks.isEmpty()) {
            return 0;
        }
        long leaseMillis = Checks.millis(Checks.positive(lease, "lease"));
        return access.withConnection("extend retry task leases", c -> {
            RetrySql s = sql(c);
            int n = 0;
            try (PreparedStatement ps = c.prepareStatement(s.extend)) {
                for (ClaimedTask t : tasks) {
                    ps.setLong(1, leaseMillis);
                    bindGuard(ps, 2, t, s);
                    n += ps.executeUpdate();
                }
            }
            return n;
        });
    }

    @Override
    public Optional<RetryTask> find(long id) {
        return access.withConnection("read retry task", id, c -> {
            RetrySql s = sql(c);
            try (PreparedStatement ps = c.prepareStatement(s.find)) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(s.task(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public List<RetryTask> list(TaskState state, String type, TaskPage page) {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(page, "page");
        return access.withConnection("list retry tasks", c -> {
            RetrySql s = sql(c);
            try (PreparedStatement ps = c.prepareStatement(s.list(type != null, state))) {
                int i = 1;
                ps.setString(i++, String.valueOf(state.code()));
                if (type != null) {
                    JdbcText.bind(ps, i++, type, s.dialect);
                }
                ps.setLong(i++, page.afterId());
                ps.setInt(i, page.limit());
                List<RetryTask> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(s.task(rs));
                    }
                }
                return out;
            }
        });
    }

    @Override
    public boolean unblock(long id) {
        boolean done = updateById("unblock retry task", id, s -> s.unblock);
        if (done) {
            wakeLocal();
        }
        return done;
    }

    @Override
    public int unblockAll(String type) {
        int n = access.withConnection("unblock retry tasks", type == null ? "of every type" : type, c -> {
            RetrySql s = sql(c);
            try (PreparedStatement ps = c.prepareStatement(type == null ? s.unblockEvery : s.unblockAll)) {
                if (type != null) {
                    JdbcText.bind(ps, 1, type, s.dialect);
                }
                return ps.executeUpdate();
            }
        });
        if (n > 0) {
            wakeLocal();
        }
        return n;
    }

    @Override
    public boolean cancel(long id) {
        return updateById("cancel retry task", id, s -> s.cancel);
    }

    /**
     * A guarded update of one task; false if the guard refused, {@link UnknownTaskException} if absent.
     * Through ShardingSphere an id alone reaches every shard, where ids repeat unless each shard has
     * its own residue: the task is read first and the update names its task key too (one shard), and
     * an id found on several shards is refused with nothing changed.
     */
    private boolean updateById(String operation, long id, java.util.function.Function<RetrySql, String> statement) {
        Boolean exists = access.withConnection(operation, id, c -> {
            RetrySql s = sql(c);
            String update = statement.apply(s);
            String taskKey = null;
            if (access.sharded()) {
                List<String> keys = new ArrayList<>();
                try (PreparedStatement ps =
                        c.prepareStatement("SELECT task_key FROM " + access.table() + " WHERE id = ?")) {
                    ps.setLong(1, id);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            keys.add(rs.getString(1));
                        }
                    }
                }
                if (keys.isEmpty()) {
                    return false;
                }
                if (keys.size() > 1) {
                    throw new IllegalStateException("retry task id " + id + " exists on " + keys.size()
                            + " shards, so it names no one task: nothing was changed. Give each shard its own id"
                            + " residue (docs/scaling-sharding.md, \"Retry task ids unique across shards\") and"
                            + " address these tasks by their task keys " + keys);
                }
                taskKey = keys.get(0);
                update = update + " AND task_key = ?";
            }
            try (PreparedStatement ps = c.prepareStatement(update)) {
                ps.setLong(1, id);
                if (taskKey != null) {
                    ps.setString(2, taskKey);
                }
                if (ps.executeUpdate() == 1) {
                    return null;
                }
            }
            try (PreparedStatement ps = c.prepareStatement(s.exists)) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        });
        if (exists == null) {
            return true;
        } else if (!exists) {
            throw new UnknownTaskException(id);
        }
        return false;
    }

    @Override
    public RetryStats stats() {
        return access.withConnection("count retry tasks", c -> {
            RetrySql s = sql(c);
            List<RetryStats.Row> rows = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(s.stats);
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new RetryStats.Row(
                            rs.getString(1), // text on every database (RetrySql#stats)
                            TaskState.ofCode(rs.getString(2).charAt(0)),
                            rs.getLong(3),
                            s.instant(rs, 4)));
                }
            }
            return new RetryStats(rows);
        });
    }

    @Override
    public int purgeSucceeded(Duration olderThan, int limit) {
        long millis = Checks.millis(Checks.notNegative(olderThan, "olderThan"));
        Checks.atLeast(limit, 1, "limit");
        return access.withConnection("purge retry tasks", c -> {
            RetrySql s = sql(c);
            if (access.sharded()) {
                return RetryWrites.purgeByKey(c, s, millis, limit);
            }
            return ReadCommitted.run(c, s.dialect, () -> {
                try (PreparedStatement ps = c.prepareStatement(s.purge)) {
                    ps.setLong(1, -millis);
                    ps.setInt(2, limit);
                    return ps.executeUpdate();
                }
            });
        });
    }

    /**
     * Subscribes {@code listener}; on PostgreSQL (unless {@link Builder#listenForNotifications} is
     * off) the first subscription starts the LISTEN connection — as soon as the dialect is known, so
     * a store whose database is down at start-up begins listening once it is reached.
     */
    @Override
    public AutoCloseable onWork(Runnable listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        if (sql == null) {
            try {
                sql();
            } catch (StoreUnavailableException e) {
                // Polling works meanwhile; the first statement that reaches the database starts it.
            }
        }
        listenIfPostgres();
        return () -> unsubscribe(listener);
    }

    private void listenIfPostgres() {
        RetrySql s = sql;
        // Through ShardingSphere there is no PostgreSQL connection to LISTEN on (and a notification
        // would come from one shard only): workers poll.
        if (!listen || listeners.isEmpty() || s == null || s.dialect != SqlDialect.POSTGRESQL || access.sharded()) {
            return;
        }
        synchronized (listenLock) {
            if (notifications == null && !listeners.isEmpty()) {
                notifications = PgNotifications.start(access, RetrySql.channel(access.table()), this::wakeLocal);
            }
        }
    }

    private void unsubscribe(Runnable listener) {
        synchronized (listenLock) {
            listeners.remove(listener);
            if (listeners.isEmpty() && notifications != null) {
                notifications.close();
                notifications = null;
            }
        }
    }

    private void wakeLocal() {
        for (Runnable r : listeners) {
            r.run();
        }
    }

    /** The statements, detecting the dialect (and creating the table) on a pooled connection if needed. */
    private RetrySql sql() {
        RetrySql s = sql;
        return s != null ? s : access.withConnection("detect dialect", this::sql);
    }

    private RetrySql sql(Connection c) throws SQLException {
        SqlDialect dialect = access.dialect(c);
        RetrySql s = sql;
        if (s == null) {
            if (access.sharded()) {
                ShardedTaskIds.require(c, dialect, access.table());
            }
            s = new RetrySql(dialect, access.table());
            sql = s;
            listenIfPostgres();
        }
        return s;
    }

    /** Builder; not thread-safe. */
    public static final class Builder extends JdbcStoreBuilder<Builder, JdbcRetryStore> {
        private boolean listen = true;

        private Builder(DataSource dataSource) {
            super(dataSource, DEFAULT_TABLE);
        }

        /**
         * On PostgreSQL, hold one connection of the pool that LISTENs for enqueues by any process
         * while a {@code RetryLog} runs (default true); off, workers learn of other processes'
         * tasks by polling.
         *
         * @param listen true to listen for notifications on PostgreSQL (ignored on other databases)
         * @return this builder
         */
        public Builder listenForNotifications(boolean listen) {
            this.listen = listen;
            return this;
        }

        @Override
        public JdbcRetryStore build() {
            return new JdbcRetryStore(this);
        }
    }
}

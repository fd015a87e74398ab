package io.dupguard.console;

import io.dupguard.StoreUnavailableException;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.JdbcProcessedMessages;
import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.retry.Alert;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The operator console's model: what it reads from the stores (retry tasks, idempotency keys,
 * locks, the audit) and the audited actions. Framework-free: {@link ConsoleHandler} serves it as
 * HTML pages and a JSON API to any host (the Spring Boot starter, {@code dupguard console}).
 *
 * <p>Everything is read from the database (and Redis), never from one process's memory, so every
 * instance of an application shows the same. Thread-safe.
 */
public final class Console implements AutoCloseable {
    private final Db db;
    private final RetryTasks tasks;
    private final TaskActions taskActions;
    private final IdempotencyKeys keys;
    private final AuditLog audit;
    private final List<LockSource> locks;
    private final Supplier<List<Meter>> meters;
    private final MeterRates rates = new MeterRates(System::nanoTime);
    private final Function<String, OptionalInt> maxAttempts;
    private final StatefulRedisConnection<String, String> redis;

    private Console(Builder b) {
        this.db = new Db(b.dataSource);
        this.audit = new AuditLog(db, b.auditTable);
        this.tasks = new RetryTasks(db, b.retryTable);
        this.taskActions = new TaskActions(db, tasks, audit);
        this.keys = new IdempotencyKeys(db, b.idempotencyTable, b.processedTable, audit);
        List<LockSource> l = new ArrayList<>();
        l.add(new JdbcLocks(db, b.lockTable));
        if (b.redis != null) {
            l.add(new RedisLocks(b.redis, b.redisLockPrefix));
        }
        this.locks = List.copyOf(l);
        this.meters = b.meters;
        this.maxAttempts = b.maxAttempts;
        this.redis = b.redis;
        if (b.createAuditTable) {
            audit.createIfMissing();
        }
    }

    /**
     * A builder over the stores' database.
     *
     * @param dataSource the database of the retry, idempotency, lock and audit tables; not null
     * @return a new builder
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * A meter value for the overview.
     *
     * @param name the meter's name, e.g. {@code dupguard.retry.tasks}
     * @param tags its tags as {@code k=v} pairs joined by commas, or empty
     * @param value its count (a counter) or value (a gauge)
     */
    public record Meter(String name, String tags, double value) {}

    /** Closes the Redis connection given to {@link Builder#redisLocks}, if any. */
    @Override
    public void close() {
        if (redis != null) {
            redis.close();
        }
    }

    // ---- reads

    Page<TaskRow> tasks(TaskFilter f) {
        return tasks.list(f);
    }

    Optional<TaskRow> task(long id) {
        return tasks.find(id);
    }

    List<RetryTasks.Count> counts() {
        return tasks.counts();
    }

    Optional<KeyRow> key(String scope, String key) {
        return keys.find(scope, key);
    }

    List<String> scopes() {
        return keys.scopes();
    }

    Page<KeyRow> stuck(String scope, String after, int limit) {
        return keys.stuck(scope, after, limit);
    }

    List<LockRow> locks(int limit) {
        return lockPage(limit).rows();
    }

    /** The held locks of every provider; the note says if a provider listed only part of them. */
    Page<LockRow> lockPage(int limit) {
        List<LockRow> out = new ArrayList<>();
        String note = null;
        for (LockSource s : locks) {
            Page<LockRow> p = s.held(null, limit);
            out.addAll(p.rows());
            note = p.note() != null ? p.note() : note;
        }
        return new Page<>(out, null, note);
    }

    Page<AuditEntry> audit(long beforeId, int limit) {
        return audit.page(beforeId, limit);
    }

    List<MeterRates.Rate> meters() {
        return rates.read(meters.get());
    }

    /**
     * Why a BLOCKED task was parked, from what the table keeps: the runner's own texts for an
     * unknown type and a lost last attempt; otherwise its attempts against the type's maximum if the
     * host knows the handler, else either reason.
     */
    String alertReason(TaskRow t) {
        if (t.state() != io.dupguard.retry.TaskState.BLOCKED) {
            return "";
        }
        String e = t.lastError() == null ? "" : t.lastError();
        if (e.startsWith("no handler for task type")) {
            return Alert.Reason.UNKNOWN_TYPE.name();
        }
        if (e.contains("was the last allowed and its worker lost the lease")) {
            return Alert.Reason.ATTEMPTS_EXHAUSTED.name();
        }
        OptionalInt max = maxAttempts.apply(t.type());
        if (max.isPresent()) {
            return (t.attempts() >= max.getAsInt() ? Alert.Reason.ATTEMPTS_EXHAUSTED : Alert.Reason.NOT_RETRYABLE)
                    .name();
        }
        return "ATTEMPTS_EXHAUSTED or NOT_RETRYABLE";
    }

    // ---- actions

    Outcome task(Actor actor, String action, long id, Instant version, byte[] payload, String reason) {
        return taskActions.apply(actor, TaskActions.Kind.named(action), id, version, payload, reason);
    }

    TaskActions.Selection select(String action, TaskFilter f) {
        return taskActions.select(TaskActions.Kind.named(action), f);
    }

    Outcome bulk(Actor actor, String action, TaskFilter f, long maxId, long expected, String reason) {
        return taskActions.applyAll(actor, TaskActions.Kind.named(action), f, maxId, expected, reason);
    }

    Outcome forceExpire(Actor actor, String scope, String key, Instant version, String reason) {
        return keys.forceExpire(actor, scope, key, version, reason);
    }

    /**
     * Releases the lock if {@code owner} (the lock's version: the token the operator saw) still holds
     * it. The audit entry is written first, its transaction left open; then the provider releases
     * the lock; then the entry commits. An entry that cannot be written leaves the lock held; a
     * release that fails or finds another holder rolls the entry back. A JDBC lock is released in
     * the entry's transaction; a Redis lock is released between the insert and the commit, so only a
     * failed commit after it leaves a released lock without its entry, which the error then says.
     */
    Outcome releaseLock(Actor actor, String provider, String name, String owner, String reason) {
        String why = Reasons.check(actor, reason);
        if (provider == null) {
            throw new BadRequestException("give provider (jdbc or redis); nothing changed");
        }
        LockSource source = locks.stream()
                .filter(s -> s.provider().equals(provider))
                .findFirst()
                .orElseThrow(() -> new BadRequestException("no lock provider '" + provider + "' in this console"));
        if (name == null) {
            throw new BadRequestException("give name: the lock's name as listed; nothing changed");
        }
        if (owner == null) {
            throw new BadRequestException(
                    "give owner: the holder's owner token as listed (the lock's version); nothing changed");
        }
        String lock = "lock " + provider + ":" + name;
        LockRow before = source.find(name).orElse(null);
        if (before == null || !before.owner().equals(owner)) {
            return Outcome.refused(lock + " is no longer held by " + owner
                    + (before == null ? " (it is free)" : " (another holder has it now)") + "; nothing changed");
        }
        boolean[] released = {false};
        try {
            return db.inTransaction("release lock", c -> {
                audit.write(
                        c,
                        actor,
                        "release-lock",
                        lock,
                        why,
                        Json.object("owner", owner, "fence", before.fence(), "leaseEnd", before.leaseEnd()),
                        Json.object("owner", null));
                if (!source.release(c, name, owner)) {
                    c.rollback();
                    return Outcome.refused(lock + " changed meanwhile; nothing changed");
                }
                released[0] = true;
                return Outcome.done(lock + " released: a second holder may enter; the fence (next token above "
                        + before.fence() + ") protects the resource");
            });
        } catch (StoreUnavailableException e) {
            if (released[0] && !source.releasesInTransaction()) {
                throw new StoreUnavailableException(
                        "jdbc",
                        lock + " is released, but the commit of its audit entry failed (" + e.getMessage()
                                + "); the audit may lack this release",
                        e);
            }
            throw e;
        }
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private final DataSource dataSource;
        private String retryTable = JdbcRetryStore.DEFAULT_TABLE;
        private String idempotencyTable = JdbcIdempotencyStore.DEFAULT_TABLE;
        private String processedTable = JdbcProcessedMessages.DEFAULT_TABLE;
        private String lockTable = JdbcLockProvider.DEFAULT_TABLE;
        private String auditTable = AuditLog.DEFAULT_TABLE;
        private boolean createAuditTable = true;
        private StatefulRedisConnection<String, String> redis;
        private String redisLockPrefix = "dupguard:lock:";
        private Supplier<List<Meter>> meters = List::of;
        private Function<String, OptionalInt> maxAttempts = type -> OptionalInt.empty();

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /**
         * The tables' names (defaults: the stores' defaults and {@code dupguard_console_audit}).
         *
         * @param tables keys {@code retry}, {@code idempotency}, {@code processed} (the processed-messages
         *     table of {@code JdbcProcessedMessages}, looked up for a key the idempotency table does not
         *     have, when it exists), {@code locks}, {@code audit}; missing keys keep their default
         * @return this builder
         */
        public Builder tables(Map<String, String> tables) {
            retryTable = tables.getOrDefault("retry", retryTable);
            idempotencyTable = tables.getOrDefault("idempotency", idempotencyTable);
            processedTable = tables.getOrDefault("processed", processedTable);
            lockTable = tables.getOrDefault("locks", lockTable);
            auditTable = tables.getOrDefault("audit", auditTable);
            return this;
        }

        /**
         * Whether to create the audit table if it is missing (default true).
         *
         * @param create true to run {@code CREATE TABLE IF NOT EXISTS} at build
         * @return this builder
         */
        public Builder createAuditTable(boolean create) {
            this.createAuditTable = create;
            return this;
        }

        /**
         * Lists and releases the locks of {@code RedisLockProvider} on this connection.
         *
         * @param connection a connection to the provider's Redis, closed by {@link Console#close()}; not null
         * @param keyPrefix the provider's key prefix; not null
         * @return this builder
         */
        public Builder redisLocks(StatefulRedisConnection<String, String> connection, String keyPrefix) {
            this.redis = Objects.requireNonNull(connection, "connection");
            this.redisLockPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
            return this;
        }

        /**
         * The meters shown on the overview.
         *
         * @param meters reads the current values; not null
         * @return this builder
         */
        public Builder meters(Supplier<List<Meter>> meters) {
            this.meters = Objects.requireNonNull(meters, "meters");
            return this;
        }

        /**
         * The maximum attempts of each task type's handler, which tells an exhausted task from a
         * non-retryable failure.
         *
         * @param maxAttempts by task type, empty if unknown; not null
         * @return this builder
         */
        public Builder maxAttempts(Function<String, OptionalInt> maxAttempts) {
            this.maxAttempts = Objects.requireNonNull(maxAttempts, "maxAttempts");
            return this;
        }

        /**
         * The console; detects the dialect (and creates the audit table) on the database.
         *
         * @return a thread-safe console
         * @throws io.dupguard.StoreUnavailableException if the database cannot be reached
         */
        public Console build() {
            return new Console(this);
        }
    }
}

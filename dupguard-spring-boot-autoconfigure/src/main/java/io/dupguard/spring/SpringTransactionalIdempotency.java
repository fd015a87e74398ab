package io.dupguard.spring;

import io.dupguard.idempotency.FailurePolicy;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.idempotency.Outcome;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcProcessedMessages;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import io.dupguard.spring.annotation.TransactionJoin;
import java.lang.reflect.Type;
import java.sql.Connection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Idempotency inside the caller's Spring-managed transaction on the application's {@link
 * DataSource}: the claim, the caller's SQL and the completion commit together, and a rollback of the
 * caller's transaction (an exception out of a {@code @Transactional} method) removes the claim with
 * everything else, so a retry runs the work again. Built on {@link JdbcTransactionalIdempotency}'s
 * caller-owned mode (claim first; a concurrent duplicate waits on the row lock until the first
 * transaction ends, then replays, or runs after a rollback).
 *
 * <p>The store must be on the same DataSource that the transaction manager uses (the starter builds
 * it from the application's DataSource). Failures are never stored for replay here: the rollback
 * removes the claim. Thread-safe.
 *
 * <p>An instance {@linkplain #withProcessedMessages() on the processed-messages table} records its
 * {@code Void} calls (a listener's) in a {@link JdbcProcessedMessages} table instead of the store's
 * records: one row of key, compact fingerprint and expiry per message. Other result types still use
 * the store. Every consumer of one scope must use the same layout: the two tables do not see each
 * other's keys.
 */
public class SpringTransactionalIdempotency implements TransactionJoin {
    private final JdbcIdempotencyStore store;
    private final JdbcProcessedMessages processed;
    private final DataSource dataSource;
    private final IdempotencyConfig config;
    private final JdbcTransactionalIdempotency plain;
    /** The executor of {@code Void} calls: on the processed-messages table, or {@link #plain}. */
    private final JdbcTransactionalIdempotency voids;

    private final Map<Type, JdbcTransactionalIdempotency> typed = new ConcurrentHashMap<>();

    /**
     * Transactional idempotency of {@code store} inside Spring transactions on {@code dataSource}.
     *
     * @param store the jdbc store, built on {@code dataSource}; not null
     * @param dataSource the DataSource the transaction manager binds; not null
     * @param config the retention, codec and listener; not null (its failure policy is not used:
     *     failures roll back)
     * @throws NullPointerException if an argument is null
     */
    public SpringTransactionalIdempotency(JdbcIdempotencyStore store, DataSource dataSource, IdempotencyConfig config) {
        this(store, null, false, dataSource, config);
    }

    /**
     * Transactional idempotency of {@code store} inside Spring transactions on {@code dataSource},
     * with a processed-messages table that {@link #withProcessedMessages()} turns on.
     *
     * @param store the jdbc store, built on {@code dataSource}; not null
     * @param processed the processed-messages table on {@code dataSource}, or null if there is none
     * @param dataSource the DataSource the transaction manager binds; not null
     * @param config the retention, codec and listener; not null (its failure policy is not used:
     *     failures roll back)
     * @throws NullPointerException if {@code store}, {@code dataSource} or {@code config} is null
     */
    public SpringTransactionalIdempotency(
            JdbcIdempotencyStore store,
            JdbcProcessedMessages processed,
            DataSource dataSource,
            IdempotencyConfig config) {
        this(store, processed, false, dataSource, config);
    }

    private SpringTransactionalIdempotency(
            JdbcIdempotencyStore store,
            JdbcProcessedMessages processed,
            boolean voidsToProcessed,
            DataSource dataSource,
            IdempotencyConfig config) {
        this.store = Objects.requireNonNull(store, "store");
        this.processed = processed;
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.config = Objects.requireNonNull(config, "config");
        this.plain = JdbcTransactionalIdempotency.of(store, config);
        this.voids = voidsToProcessed
                ? JdbcTransactionalIdempotency.of(
                        processed,
                        IdempotencyConfig.from(config)
                                .failurePolicy(FailurePolicy.releaseOnFailure())
                                .build())
                : plain;
    }

    /**
     * Whether a processed-messages table was given, for {@link #withProcessedMessages()}.
     *
     * @return true if {@link #withProcessedMessages()} can be called
     */
    public boolean hasProcessedMessages() {
        return processed != null;
    }

    /**
     * Whether {@code Void} calls are recorded in the processed-messages table.
     *
     * @return true for an instance of {@link #withProcessedMessages()}
     */
    public boolean usesProcessedMessages() {
        return voids != plain;
    }

    /**
     * The same store, DataSource and configuration, its {@code Void} calls recorded in the
     * processed-messages table.
     *
     * @return a new instance; this one is unchanged
     * @throws IllegalStateException if this instance was built without a processed-messages table
     */
    public SpringTransactionalIdempotency withProcessedMessages() {
        if (processed == null) {
            throw new IllegalStateException("no processed-messages table was given to this instance");
        }
        return new SpringTransactionalIdempotency(store, processed, true, dataSource, config);
    }

    /**
     * The same store and DataSource with another configuration (say, another codec).
     *
     * @param config the retention, codec and listener; not null
     * @return a new instance; this one is unchanged
     */
    public SpringTransactionalIdempotency withConfig(IdempotencyConfig config) {
        return new SpringTransactionalIdempotency(store, processed, usesProcessedMessages(), dataSource, config);
    }

    /**
     * The DataSource whose Spring transactions this instance joins.
     *
     * @return the DataSource; never null
     */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Whether a Spring transaction with a connection of this store's DataSource is active on this
     * thread.
     *
     * @return true if such a transaction is active on the current thread
     */
    public boolean inTransaction() {
        return TransactionSynchronizationManager.isActualTransactionActive()
                && TransactionSynchronizationManager.getResource(dataSource) != null;
    }

    @Override
    public boolean active() {
        return inTransaction();
    }

    /**
     * Runs {@code work} once per key in the current transaction.
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param key the operation's key; not null
     * @param fingerprint the request's fingerprint, or {@link Fingerprint#none()}; not null
     * @param type the result type, used to decode replays; not null
     * @param work the operation; not null
     * @return the result and whether this call ran the work or replayed it; never null
     * @throws IllegalStateException if no transaction on this DataSource is active ({@link
     *     #inTransaction()})
     * @throws io.dupguard.idempotency.PayloadMismatchException the key was used with another
     *     fingerprint
     * @throws E whatever the work throws (the caller's transaction should then roll back)
     */
    public <T, E extends Exception> Outcome<T> execute(
            IdempotencyKey key, Fingerprint fingerprint, Class<T> type, IdempotentWork<T, E> work) throws E {
        return run(executorOf(type), key, fingerprint, type, work);
    }

    private JdbcTransactionalIdempotency executorOf(Class<?> type) {
        return type == Void.class || type == void.class ? voids : plain;
    }

    /** Like {@link #execute(IdempotencyKey, Fingerprint, Class, IdempotentWork)} for a generic result type. */
    @Override
    public <T, E extends Exception> Outcome<T> execute(
            IdempotencyKey key, Fingerprint fingerprint, Type type, IdempotentWork<T, E> work) throws E {
        JdbcTransactionalIdempotency executor = type instanceof Class<?> c
                ? executorOf(c)
                : typed.computeIfAbsent(type, t -> JdbcTransactionalIdempotency.of(store, ResultTypes.bind(config, t)));
        return run(executor, key, fingerprint, ResultTypes.raw(type), work);
    }

    /**
     * Claims a batch in the current transaction in one statement, runs {@code work} on the claimed
     * entries and records what it reports, all in that transaction ({@link
     * JdbcTransactionalIdempotency#executeBatch}).
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param entries the keys and fingerprints; not null, not empty
     * @param type the result type; not null
     * @param work the work on the claimed entries; not null
     * @return one result per entry, in order; never null
     * @throws IllegalStateException if no transaction on this DataSource is active
     * @throws E what {@code work} threw (the caller's transaction should then roll back)
     */
    public <T, E extends Exception> java.util.List<io.dupguard.idempotency.BatchResult<T>> executeBatch(
            java.util.List<io.dupguard.idempotency.BatchEntry> entries,
            Class<T> type,
            io.dupguard.idempotency.BatchWork<T, E> work)
            throws E {
        if (!inTransaction()) {
            throw new IllegalStateException("no Spring transaction on dupguard's DataSource is active");
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            return executorOf(type).executeBatch(connection, entries, type, work);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /**
     * How long a call that owns its transaction waits, outside it, for a key another caller holds in
     * flight in autocommit: the configuration's {@link io.dupguard.idempotency.InFlightPolicy}.
     */
    java.time.Duration inFlightWait() {
        return config.inFlightPolicy().waits() ? config.inFlightPolicy().maxWait() : java.time.Duration.ZERO;
    }

    /**
     * Polls the key's row in autocommit, outside any transaction, until it is no longer in flight.
     *
     * @return true once it is not in flight (gone, completed or failed); false at {@code deadlineMillis}
     */
    boolean awaitSettled(IdempotencyKey key, long deadlineMillis) {
        long pause = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1);
        long most = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50);
        while (true) {
            var current = store.find(key);
            if (current.isEmpty() || current.get().status() != io.dupguard.idempotency.RecordStatus.IN_PROGRESS) {
                return true;
            }
            long remaining = deadlineMillis - config.clock().millis();
            if (remaining <= 0) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(
                    Math.min(pause, java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(remaining)));
            pause = Math.min(pause * 2, most);
        }
    }

    /** The configuration's clock. */
    java.time.Clock clock() {
        return config.clock();
    }

    private <T, E extends Exception> Outcome<T> run(
            JdbcTransactionalIdempotency executor,
            IdempotencyKey key,
            Fingerprint fingerprint,
            Class<T> type,
            IdempotentWork<T, E> work)
            throws E {
        if (!inTransaction()) {
            throw new IllegalStateException("no Spring transaction on dupguard's DataSource is active; call this from a"
                    + " @Transactional method (or TransactionTemplate) on the application's DataSource");
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            return executor.execute(connection, key, fingerprint, type, c -> work.call());
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }
}

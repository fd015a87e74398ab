package io.dupguard.spring.retry;

import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.retry.ClaimedTask;
import io.dupguard.retry.Enqueued;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.RetryStats;
import io.dupguard.retry.RetryStore;
import io.dupguard.retry.RetryTask;
import io.dupguard.retry.TaskPage;
import io.dupguard.retry.TaskState;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A {@link JdbcRetryStore} whose {@link #enqueue(NewTask)} joins the caller's Spring-managed
 * transaction on the store's {@link DataSource} (the outbox rule, guarantee R5): called from a
 * {@code @Transactional} method, {@code RetryLog.enqueue} records the task with the caller's own
 * writes, so a rollback removes it and the workers never run it; after the commit they do. Without
 * such a transaction the task is recorded in a transaction of its own, as by the plain store.
 *
 * <p>Only the enqueue joins. A failure recorded by {@code RetryLog.run} is written in its own
 * transaction, so it survives a rollback of the caller: the step was attempted (it may have reached
 * another service) and must be retried or reported either way. Every worker write is the plain
 * store's.
 *
 * <p>{@code dataSource} must be the one the store was built on and the one the transaction manager
 * binds (the starter builds both from the application's DataSource). Thread-safe.
 */
public class SpringTransactionalRetryStore implements RetryStore {
    private final JdbcRetryStore store;
    private final DataSource dataSource;

    /**
     * A store whose enqueues join the Spring transaction on {@code dataSource}.
     *
     * @param store the jdbc store, built on {@code dataSource}; not null
     * @param dataSource the DataSource the transaction manager binds; not null
     * @throws NullPointerException if an argument is null
     */
    public SpringTransactionalRetryStore(JdbcRetryStore store, DataSource dataSource) {
        this.store = Objects.requireNonNull(store, "store");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * The JDBC store underneath, for {@code enqueue(Connection, …)} on a connection of your own.
     *
     * @return the jdbc store; never null
     */
    public JdbcRetryStore jdbcStore() {
        return store;
    }

    /**
     * Whether a Spring transaction holding a connection of this store's DataSource is active on
     * this thread.
     *
     * @return true if such a transaction is active on the current thread
     */
    public boolean inTransaction() {
        return TransactionSynchronizationManager.isActualTransactionActive()
                && TransactionSynchronizationManager.getResource(dataSource) != null;
    }

    /**
     * Records {@code task} in the current Spring transaction on the DataSource if there is one
     * ({@link #inTransaction()}), otherwise in a transaction of its own.
     *
     * @throws io.dupguard.StoreUnavailableException if a statement fails (in a transaction, the
     *     caller's transaction should then roll back)
     */
    @Override
    public Enqueued enqueue(NewTask task) {
        if (!inTransaction()) {
            return store.enqueue(task);
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            return store.enqueue(connection, task);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    @Override
    public Enqueued recordFailure(NewTask task, Duration retryDelay, String error) {
        return store.recordFailure(task, retryDelay, error);
    }

    @Override
    public List<ClaimedTask> claim(String owner, int max, Duration lease) {
        return store.claim(owner, max, lease);
    }

    @Override
    public void succeed(ClaimedTask task) {
        store.succeed(task);
    }

    @Override
    public List<ClaimedTask> succeedAll(List<ClaimedTask> tasks) {
        return store.succeedAll(tasks);
    }

    @Override
    public void retryLater(ClaimedTask task, Duration delay, String error) {
        store.retryLater(task, delay, error);
    }

    @Override
    public void block(ClaimedTask task, String error) {
        store.block(task, error);
    }

    @Override
    public int extendLeases(String owner, Collection<ClaimedTask> tasks, Duration lease) {
        return store.extendLeases(owner, tasks, lease);
    }

    @Override
    public void completeInTransaction(Connection connection, ClaimedTask task) {
        store.completeInTransaction(connection, task);
    }

    @Override
    public Optional<RetryTask> find(long id) {
        return store.find(id);
    }

    @Override
    public List<RetryTask> list(TaskState state, String type, TaskPage page) {
        return store.list(state, type, page);
    }

    @Override
    public boolean unblock(long id) {
        return store.unblock(id);
    }

    @Override
    public int unblockAll(String type) {
        return store.unblockAll(type);
    }

    @Override
    public boolean cancel(long id) {
        return store.cancel(id);
    }

    @Override
    public RetryStats stats() {
        return store.stats();
    }

    @Override
    public int purgeSucceeded(Duration olderThan, int limit) {
        return store.purgeSucceeded(olderThan, limit);
    }

    @Override
    public AutoCloseable onWork(Runnable listener) {
        return store.onWork(listener);
    }

    @Override
    public String toString() {
        return "SpringTransactionalRetryStore[" + store.tableName() + "]";
    }
}

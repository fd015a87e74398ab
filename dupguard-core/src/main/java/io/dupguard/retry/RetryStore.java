package io.dupguard.retry;

import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Where retry tasks live. A backend implements this; applications use {@link RetryLog}.
 *
 * <p>Contract, which every implementation proves by running {@code AbstractRetryStoreContractTest}
 * from {@code dupguard-test-support} against a real server:
 *
 * <ul>
 *   <li>{@link #claim} hands each due task to at most one worker at a time: it moves due PENDING
 *       tasks, and RUNNING tasks whose lease ended, to RUNNING under the claiming owner with a new
 *       lease measured by the store's clock, counting one more run.
 *   <li>A worker's writes ({@link #succeed}, {@link #retryLater}, {@link #block}, {@link
 *       #completeInTransaction}) are guarded by state RUNNING, owner and run count in the same atomic
 *       step; a refused write throws {@link io.dupguard.LeaseLostException} and changes nothing.
 *   <li>Of several enqueues of one type with one dedup key, exactly one records a task.
 *   <li>Any failure to reach or use the store throws {@link io.dupguard.StoreUnavailableException};
 *       nothing is reported done that was not.
 * </ul>
 *
 * <p>Implementations are thread-safe.
 */
public interface RetryStore {

    /**
     * Records {@code task} as PENDING and due now, unless one of its type with its dedup key
     * exists.
     *
     * @param task the task to record; not null
     * @return the task's id and whether it was recorded now or existed already
     */
    Enqueued enqueue(NewTask task);

    /**
     * Records a task whose first run (inline, by {@link RetryLog#run}) failed: PENDING and due after
     * {@code retryDelay}, or BLOCKED if {@code retryDelay} is null; one run counted, {@code error}
     * kept. An existing task of the same type and dedup key is returned unchanged instead.
     *
     * @param task the task whose inline run failed; not null
     * @param retryDelay the pause before the next run, or null to record it BLOCKED
     * @param error the failure's text, possibly null (truncated by the store)
     * @return the task's id and whether it was recorded now or existed already
     */
    Enqueued recordFailure(NewTask task, Duration retryDelay, String error);

    /**
     * Claims up to {@code max} due tasks for {@code owner}, earliest due first, with a lease of
     * {@code lease}. Never waits for tasks other workers are claiming.
     *
     * @param owner the claiming worker group's id; not null
     * @param max the most tasks to claim, at least 1
     * @param lease the lease of each claimed task, counted from now; positive
     * @return the claimed tasks, empty if none is due; never null
     */
    List<ClaimedTask> claim(String owner, int max, Duration lease);

    /**
     * RUNNING → SUCCEEDED.
     *
     * @param task a task this worker group claimed; not null
     * @throws io.dupguard.LeaseLostException if the claim is no longer current
     */
    void succeed(ClaimedTask task);

    /**
     * RUNNING → SUCCEEDED for several tasks at once, each guarded like {@link #succeed}. A database
     * store writes them with one statement.
     *
     * @param tasks tasks this worker group claimed; not null, possibly empty
     * @return the tasks whose claim was no longer current (nothing was changed for them)
     */
    default List<ClaimedTask> succeedAll(List<ClaimedTask> tasks) {
        List<ClaimedTask> refused = new java.util.ArrayList<>();
        for (ClaimedTask t : tasks) {
            try {
                succeed(t);
            } catch (io.dupguard.LeaseLostException e) {
                refused.add(t);
            }
        }
        return refused;
    }

    /**
     * RUNNING → PENDING, due after {@code delay}, keeping {@code error}.
     *
     * @param task a task this worker group claimed; not null
     * @param delay the pause before the next run; positive
     * @param error the failure's text, possibly null
     * @throws io.dupguard.LeaseLostException if the claim is no longer current
     */
    void retryLater(ClaimedTask task, Duration delay, String error);

    /**
     * RUNNING → BLOCKED, keeping {@code error}.
     *
     * @param task a task this worker group claimed; not null
     * @param error the failure's text, possibly null
     * @throws io.dupguard.LeaseLostException if the claim is no longer current
     */
    void block(ClaimedTask task, String error);

    /**
     * Extends the leases of {@code tasks}, all claimed by {@code owner}, to {@code lease} from now.
     *
     * @param owner the worker group's id; not null
     * @param tasks the tasks to extend; not null, possibly empty
     * @param lease the new lease, counted from now; positive
     * @return how many were still this owner's and were extended
     */
    int extendLeases(String owner, Collection<ClaimedTask> tasks, Duration lease);

    /**
     * RUNNING → SUCCEEDED inside the caller's open transaction on {@code connection}; see {@link
     * TaskContext#completeInTransaction}.
     *
     * @param connection a connection to the store's database inside an open transaction; not null,
     *     not committed here
     * @param task a task this worker group claimed; not null
     * @throws io.dupguard.LeaseLostException if the claim is no longer current
     * @throws UnsupportedOperationException if this store is not a database (the default)
     */
    default void completeInTransaction(Connection connection, ClaimedTask task) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot complete a task in a JDBC "
                + "transaction; use a JDBC retry store on the same database");
    }

    /**
     * The task with this id, if the store holds it.
     *
     * @param id the task id
     * @return the task, or empty if the store does not hold it
     */
    Optional<RetryTask> find(long id);

    /**
     * Tasks in {@code state}, of {@code type} (or any type if null), by ascending id.
     *
     * @param state the state; not null
     * @param type the task type, or null for every type
     * @param page where to start and how many to return; not null
     * @return the tasks, at most {@code page}'s limit; never null
     */
    List<RetryTask> list(TaskState state, String type, TaskPage page);

    /**
     * BLOCKED → PENDING, due now, with a fresh attempt budget.
     *
     * @param id the task id
     * @return false if the task is not BLOCKED
     * @throws UnknownTaskException if there is no such task
     */
    boolean unblock(long id);

    /**
     * Unblocks every BLOCKED task of {@code type}, or of every type when {@code type} is null: each
     * becomes PENDING, due now, with a fresh attempt budget.
     *
     * @param type the task type, or null for every type
     * @return the number of tasks unblocked; 0 if none was BLOCKED
     */
    int unblockAll(String type);

    /**
     * PENDING or BLOCKED → CANCELLED. A RUNNING task cannot be cancelled (its handler is running).
     *
     * @param id the task id
     * @return false if the task was RUNNING or already terminal other than BLOCKED
     * @throws UnknownTaskException if there is no such task
     */
    boolean cancel(long id);

    /**
     * Counts by type and state.
     *
     * @return a snapshot of the counts; never null
     */
    RetryStats stats();

    /**
     * Deletes at most {@code limit} tasks that SUCCEEDED more than {@code olderThan} ago; returns
     * how many.
     *
     * @param olderThan the retention; positive
     * @param limit the most tasks to delete, at least 1
     * @return the number of tasks deleted
     */
    int purgeSucceeded(Duration olderThan, int limit);

    /**
     * Calls {@code listener} (on any thread; it must be quick) when a task may have become due sooner
     * than the next poll: a task enqueued through this store in this JVM, or a notification from the
     * database. Polling stays the fallback. The default store never calls it.
     *
     * @param listener the callback; not null, quick and non-throwing
     * @return closing it ends the subscription
     */
    default AutoCloseable onWork(Runnable listener) {
        return () -> {};
    }
}

package io.dupguard.retry;

import io.dupguard.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The retry log (guarantees R1–R6): failed steps are recorded, re-run on a schedule by workers, and end
 * SUCCEEDED, or BLOCKED with an alert for a person.
 *
 * <ol>
 *   <li>An application registers one {@link TaskHandler} per task type (R4) and calls {@link #run}
 *       on its normal path: the handler runs inline; only a failure is recorded, retryable ones as
 *       PENDING for later (R1), others as BLOCKED with an alert (R3).
 *   <li>Steps that must follow a database transaction are recorded inside it ({@code
 *       JdbcRetryStore.enqueue(Connection, …)}, the outbox rule R5) or with {@link #enqueue}; the
 *       workers run them after the commit.
 *   <li>{@link #start()} starts the workers: they claim due tasks in batches from the {@link
 *       RetryStore}, run the type's handler, and mark the task SUCCEEDED, PENDING again after the
 *       type's {@link RetrySchedule} pause, or BLOCKED when the classifier says so or the attempts
 *       are used up; blocking alerts the {@link AlertSink}, and money-related types alert on their
 *       first failure as well (R2).
 *   <li>{@link #status}, {@link RetryListener} and the operator calls ({@link #blocked}, {@link
 *       #unblock}, {@link #unblockAll}, {@link #cancel}, {@link #stats}) report and act on outcomes
 *       (R6).
 * </ol>
 *
 * <p>Thread-safe. Several {@code RetryLog}s (in one JVM or on many machines) may share a store; each
 * task runs on one worker at a time.
 */
public final class RetryLog implements AutoCloseable {
    private final RetryStore store;
    private final RetryConfig config;
    private final Map<String, Registration> handlers;
    private final TaskRunner runner;
    private final RetryWorkers workers;

    record Registration(TaskHandler handler, TaskOptions options) {}

    private RetryLog(Builder b) {
        this.store = b.store;
        this.config = b.config;
        this.handlers = Map.copyOf(b.handlers);
        this.runner = new TaskRunner(store, config, handlers);
        this.workers = new RetryWorkers(store, config, runner);
    }

    /**
     * A builder on {@code store}.
     *
     * @param store where tasks are recorded; not null
     * @return a new builder
     */
    public static Builder builder(RetryStore store) {
        return new Builder(store);
    }

    /**
     * Runs the type's handler now, on the caller's thread. Success records nothing. A retryable
     * failure is recorded as a PENDING task due after the schedule's first pause; any other failure
     * as a BLOCKED task, with an alert.
     *
     * @param type the task type; must have a registered handler
     * @param payload the handler's input; not null, at most {@value NewTask#MAX_PAYLOAD_BYTES}
     *     bytes
     * @return whether the run succeeded, and the recorded task if it failed; never null
     * @throws UnknownTaskTypeException if no handler is registered for {@code type}
     * @throws io.dupguard.InvalidIdentifierException if the type is blank, too long or has control characters
     * @throws IllegalArgumentException if the payload exceeds {@value NewTask#MAX_PAYLOAD_BYTES} bytes
     * @throws StoreUnavailableException if the handler failed and the failure could not be recorded
     *     (the handler's failure is attached as suppressed): nothing will retry it
     * @throws Error an {@link Error} from the handler, unrecorded
     */
    public RunResult run(String type, byte[] payload) {
        return run(type, payload, null);
    }

    /**
     * {@link #run(String, byte[])}, recording a failure under {@code dedupKey}: if a task of this
     * type with that key exists already (a retry of the same business operation), no second task is
     * recorded and no second alert fires; the result names the existing task.
     *
     * @param type the task type; must have a registered handler
     * @param payload the handler's input; not null, at most {@value NewTask#MAX_PAYLOAD_BYTES}
     *     bytes
     * @param dedupKey the business operation's key; null records a failure without de-duplication
     * @return whether the run succeeded, and the recorded (or existing) task if it failed; never
     *     null
     */
    public RunResult run(String type, byte[] payload, String dedupKey) {
        NewTask task = NewTask.of(type, payload, dedupKey);
        return runner.runInline(task, registration(type));
    }

    /**
     * {@link #run(String, byte[])} with a UTF-8 text payload.
     *
     * @param type the task type; must have a registered handler
     * @param payload the handler's input as text; not null
     * @return whether the run succeeded, and the recorded task if it failed; never null
     */
    public RunResult run(String type, String payload) {
        return run(type, utf8(payload));
    }

    /**
     * Records a task due now (after the store commits it) and wakes a worker. With a non-null {@code
     * dedupKey}, a second enqueue of the same type and key returns the first task instead of
     * recording another. To record a task in the same transaction as the caller's own writes, use the
     * JDBC store's {@code enqueue(Connection, …)}.
     *
     * @param type the task type; must have a registered handler
     * @param payload the handler's input; not null, at most {@value NewTask#MAX_PAYLOAD_BYTES}
     *     bytes
     * @param dedupKey the business operation's key; null for no de-duplication
     * @return the task's id and whether it was recorded now or existed already; never null
     * @throws UnknownTaskTypeException if no handler is registered for {@code type}
     * @throws io.dupguard.InvalidIdentifierException if the type or dedup key is invalid
     * @throws IllegalArgumentException if the payload exceeds {@value NewTask#MAX_PAYLOAD_BYTES} bytes
     * @throws StoreUnavailableException if the store fails; the task may or may not be recorded, and
     *     enqueuing again with the same dedup key is safe
     */
    public Enqueued enqueue(String type, byte[] payload, String dedupKey) {
        NewTask task = NewTask.of(type, payload, dedupKey);
        registration(type);
        Enqueued e = store.enqueue(task);
        workers.wake();
        return e;
    }

    /**
     * {@link #enqueue(String, byte[], String)} with a UTF-8 text payload.
     *
     * @param type the task type; must have a registered handler
     * @param payload the handler's input as text; not null
     * @param dedupKey the business operation's key; null for no de-duplication
     * @return the task's id and whether it was recorded now or existed already; never null
     */
    public Enqueued enqueue(String type, String payload, String dedupKey) {
        return enqueue(type, utf8(payload), dedupKey);
    }

    /**
     * Starts the worker threads (daemon threads named {@code dupguard-retry-*}). Idempotent.
     *
     * @return this
     */
    public RetryLog start() {
        workers.start();
        return this;
    }

    /**
     * Stops claiming, waits up to {@link RetryConfig#shutdownTimeout()} for running handlers, then
     * interrupts them. Tasks not finished stay RUNNING until their lease ends and are then claimed by
     * another worker. Idempotent.
     */
    @Override
    public void close() {
        workers.close();
    }

    /**
     * The task with this id, if the store still holds it (succeeded tasks are purged after a
     * retention).
     *
     * @param id the task id
     * @return the task, or empty if the store does not hold it
     */
    public Optional<RetryTask> status(long id) {
        return store.find(id);
    }

    /**
     * BLOCKED tasks of {@code type} (any type if null), by ascending id.
     *
     * @param type the task type, or null for every type
     * @param page where to start and how many to return; not null
     * @return the tasks, at most {@code page}'s limit; never null
     */
    public List<RetryTask> blocked(String type, TaskPage page) {
        return store.list(TaskState.BLOCKED, type, Objects.requireNonNull(page, "page"));
    }

    /**
     * Makes a BLOCKED task PENDING and due now, with a fresh attempt budget.
     *
     * @param id the task id
     * @return false if the task is not BLOCKED
     * @throws UnknownTaskException if there is no such task
     */
    public boolean unblock(long id) {
        boolean done = store.unblock(id);
        if (done) {
            workers.wake();
        }
        return done;
    }

    /**
     * Unblocks every BLOCKED task of {@code type}, or of every type when {@code type} is null: each
     * becomes PENDING, due now, with a fresh attempt budget; the workers of this log are woken if any
     * was.
     *
     * @param type the task type, or null for every type
     * @return the number of tasks unblocked; 0 if none was BLOCKED
     */
    public int unblockAll(String type) {
        int n = store.unblockAll(type);
        if (n > 0) {
            workers.wake();
        }
        return n;
    }

    /**
     * Cancels a PENDING or BLOCKED task.
     *
     * @param id the task id
     * @return false if the task is RUNNING (its handler is running) or already finished
     * @throws UnknownTaskException if there is no such task
     */
    public boolean cancel(long id) {
        return store.cancel(id);
    }

    /**
     * Counts by type and state.
     *
     * @return a snapshot of the counts; never null
     */
    public RetryStats stats() {
        return store.stats();
    }

    /**
     * The store.
     *
     * @return the store this log records in; never null
     */
    public RetryStore store() {
        return store;
    }

    /**
     * The settings.
     *
     * @return the configuration; never null
     */
    public RetryConfig config() {
        return config;
    }

    private Registration registration(String type) {
        Registration r = handlers.get(type);
        if (r == null) {
            NewTask.of(type, new byte[0], null); // a malformed type gets the key error, not "unknown"
            throw new UnknownTaskTypeException(type, handlers.keySet());
        }
        return r;
    }

    private static byte[] utf8(String text) {
        return Objects.requireNonNull(text, "payload must not be null").getBytes(StandardCharsets.UTF_8);
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private final RetryStore store;
        private final Map<String, Registration> handlers = new LinkedHashMap<>();
        private RetryConfig config = RetryConfig.ofDefaults();

        private Builder(RetryStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /**
         * Registers the one handler of {@code type}, with {@link TaskOptions#ofDefaults()}.
         *
         * @param type the task type; a valid identifier without a handler yet
         * @param handler the handler; not null, thread-safe (several workers run it at once)
         * @return this builder
         */
        public Builder handler(String type, TaskHandler handler) {
            return handler(type, handler, TaskOptions.ofDefaults());
        }

        /**
         * Registers the one handler of {@code type}.
         *
         * @param type the task type; a valid identifier without a handler yet
         * @param handler the handler; not null, thread-safe (several workers run it at once)
         * @param options the schedule, classifier and money flag of this type; not null
         * @return this builder
         * @throws IllegalArgumentException if {@code type} already has a handler
         * @throws io.dupguard.InvalidIdentifierException if {@code type} is not a valid task type
         */
        public Builder handler(String type, TaskHandler handler, TaskOptions options) {
            NewTask.of(type, new byte[0], null); // validates the type
            Objects.requireNonNull(handler, "handler");
            Objects.requireNonNull(options, "options");
            if (handlers.putIfAbsent(type, new Registration(handler, options)) != null) {
                throw new IllegalArgumentException("type '" + type + "' already has a handler");
            }
            return this;
        }

        /**
         * Workers, polling, leases, purge and alerts; {@link RetryConfig#ofDefaults()} by default.
         *
         * @param config the configuration
         * @return this builder
         * @throws NullPointerException if {@code config} is null
         */
        public Builder config(RetryConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * Builds the log; no worker runs until it is started.
         *
         * @return the log, thread-safe
         */
        public RetryLog build() {
            return new RetryLog(this);
        }
    }
}

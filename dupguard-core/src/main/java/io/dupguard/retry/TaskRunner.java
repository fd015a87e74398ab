package io.dupguard.retry;

import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a handler and records what came of it: the one place outcomes turn into state changes. */
final class TaskRunner {
    private static final Logger LOG = LoggerFactory.getLogger(RetryLog.class);
    private static final int MAX_ERROR_LENGTH = 4000;

    private final RetryStore store;
    private final RetryConfig config;
    private final Map<String, RetryLog.Registration> handlers;
    private volatile Completions completions;

    TaskRunner(RetryStore store, RetryConfig config, Map<String, RetryLog.Registration> handlers) {
        this.store = store;
        this.config = config;
        this.handlers = handlers;
    }

    /** From now on, successes are written in batches by {@code completions}. */
    void batchCompletions(Completions completions) {
        this.completions = completions;
    }

    RunResult runInline(NewTask task, RetryLog.Registration reg) {
        try {
            reg.handler().handle(new InlineContext(task));
        } catch (Exception e) {
            return recordInlineFailure(task, reg.options(), e);
        }
        config.listener().onSucceeded(0, task.type(), 1);
        return new RunResult(RunResult.Outcome.SUCCEEDED, 0, task.taskKey(), null);
    }

    private RunResult recordInlineFailure(NewTask task, TaskOptions options, Exception failure) {
        boolean retry =
                options.classifier().isRetryable(failure) && options.schedule().maxAttempts() > 1;
        Duration delay = retry ? options.schedule().delayAfter(1) : null;
        String error = describe(failure);
        Enqueued recorded;
        try {
            recorded = store.recordFailure(task, delay, error);
        } catch (StoreUnavailableException e) {
            e.addSuppressed(failure);
            throw e;
        }
        if (!recorded.created()) { // a retry of an operation already in the log: reported once
            RunResult.Outcome o = retry ? RunResult.Outcome.RETRY_SCHEDULED : RunResult.Outcome.BLOCKED;
            return new RunResult(o, recorded.id(), task.taskKey(), failure);
        }
        if (retry) {
            if (options.moneyRelated()) {
                alert(new Alert(
                        Alert.Reason.MONEY_FIRST_FAILURE, recorded.id(), task.type(), task.taskKey(), 1, error));
            }
            config.listener().onRetryScheduled(recorded.id(), task.type(), 1, delay.toMillis(), failure);
            return new RunResult(RunResult.Outcome.RETRY_SCHEDULED, recorded.id(), task.taskKey(), failure);
        }
        Alert.Reason reason =
                options.schedule().maxAttempts() > 1 ? Alert.Reason.NOT_RETRYABLE : Alert.Reason.ATTEMPTS_EXHAUSTED;
        alert(new Alert(reason, recorded.id(), task.type(), task.taskKey(), 1, error));
        config.listener().onBlocked(recorded.id(), task.type(), 1, reason, error);
        return new RunResult(RunResult.Outcome.BLOCKED, recorded.id(), task.taskKey(), failure);
    }

    /** Runs a claimed task's handler and moves the task on; never throws. */
    void runClaimed(ClaimedTask task) {
        try {
            runGuarded(task);
        } catch (LeaseLostException e) {
            config.listener().onLeaseLost(task.id(), task.type(), task.attempt());
            LOG.warn("retry task {} attempt {}: lease lost, another worker owns it", task.id(), task.attempt());
        } catch (RuntimeException e) {
            // The task stays RUNNING under this owner; another claim takes it when the lease ends.
            LOG.warn(
                    "retry task {} attempt {}: outcome not recorded, retried after its lease",
                    task.id(),
                    task.attempt(),
                    e);
        }
    }

    private void runGuarded(ClaimedTask task) {
        RetryLog.Registration reg = handlers.get(task.type());
        if (reg == null) {
            block(
                    task,
                    Alert.Reason.UNKNOWN_TYPE,
                    "no handler for task type '" + task.type() + "' in the process that claimed it (owner "
                            + task.owner() + ")");
            return;
        }
        int max = reg.options().schedule().maxAttempts();
        if (task.attempt() > max) {
            block(
                    task,
                    Alert.Reason.ATTEMPTS_EXHAUSTED,
                    "attempt " + (task.attempt() - 1)
                            + " was the last allowed and its worker lost the lease (crashed or stalled)");
            return;
        }
        ClaimedContext ctx = new ClaimedContext(task);
        try {
            reg.handler().handle(ctx);
        } catch (Exception e) {
            if (isLeaseLost(e)) {
                throw new LeaseLostException("task " + task.id(), "completion refused: " + e.getMessage());
            }
            failed(task, reg.options(), e);
            return;
        }
        if (ctx.completed) {
            config.listener().onSucceeded(task.id(), task.type(), task.attempt());
            return;
        }
        Completions batch = completions;
        if (batch != null) {
            batch.add(task); // reports success or a lost lease once written
            return;
        }
        store.succeed(task);
        config.listener().onSucceeded(task.id(), task.type(), task.attempt());
    }

    private void failed(ClaimedTask task, TaskOptions options, Exception failure) {
        String error = describe(failure);
        int max = options.schedule().maxAttempts();
        if (!options.classifier().isRetryable(failure)) {
            block(task, Alert.Reason.NOT_RETRYABLE, error);
        } else if (task.attempt() >= max) {
            block(task, Alert.Reason.ATTEMPTS_EXHAUSTED, error);
        } else {
            Duration delay = options.schedule().delayAfter(task.attempt());
            store.retryLater(task, delay, error);
            if (options.moneyRelated() && task.attempt() == 1) {
                alert(new Alert(Alert.Reason.MONEY_FIRST_FAILURE, task.id(), task.type(), task.taskKey(), 1, error));
            }
            config.listener().onRetryScheduled(task.id(), task.type(), task.attempt(), delay.toMillis(), failure);
        }
    }

    private void block(ClaimedTask task, Alert.Reason reason, String error) {
        store.block(task, error);
        alert(new Alert(reason, task.id(), task.type(), task.taskKey(), task.attempt(), error));
        config.listener().onBlocked(task.id(), task.type(), task.attempt(), reason, error);
    }

    private void alert(Alert alert) {
        try {
            config.alertSink().alert(alert);
        } catch (RuntimeException e) {
            LOG.error("alert sink failed for {}", alert, e);
        }
    }

    private static boolean isLeaseLost(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof LeaseLostException) {
                return true;
            }
        }
        return false;
    }

    /** Class and message, cut at {@value #MAX_ERROR_LENGTH} characters with a visible mark. */
    static String describe(Throwable t) {
        String s = t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
        return s.length() <= MAX_ERROR_LENGTH ? s : s.substring(0, MAX_ERROR_LENGTH - 14) + " …[truncated]";
    }

    /** What a handler sees; the inline run's completion is a no-op, nothing being recorded yet. */
    private static class InlineContext implements TaskContext {
        private final String type;
        private final byte[] payload;
        private final String taskKey;
        private final OptionalLong taskId;
        private final int attempt;

        InlineContext(NewTask task) {
            this(task.type(), task.payloadBytes(), task.taskKey(), OptionalLong.empty(), 1);
        }

        InlineContext(String type, byte[] payload, String taskKey, OptionalLong taskId, int attempt) {
            this.type = type;
            this.payload = payload;
            this.taskKey = taskKey;
            this.taskId = taskId;
            this.attempt = attempt;
        }

        @Override
        public String type() {
            return type;
        }

        @Override
        public byte[] payload() {
            return payload.clone();
        }

        @Override
        public String taskKey() {
            return taskKey;
        }

        @Override
        public OptionalLong taskId() {
            return taskId;
        }

        @Override
        public int attempt() {
            return attempt;
        }

        @Override
        public void completeInTransaction(Connection connection) {}
    }

    private final class ClaimedContext extends InlineContext {
        private final ClaimedTask task;
        private boolean completed;

        ClaimedContext(ClaimedTask task) {
            super(task.type(), task.payload(), task.taskKey(), OptionalLong.of(task.id()), task.attempt());
            this.task = task;
        }

        @Override
        public void completeInTransaction(Connection connection) {
            store.completeInTransaction(connection, task);
            completed = true;
        }
    }
}

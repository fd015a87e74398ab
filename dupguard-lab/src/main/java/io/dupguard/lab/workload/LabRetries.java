package io.dupguard.lab.workload;

import io.dupguard.retry.RetryLog;
import io.dupguard.retry.RetryStats;
import io.dupguard.retry.RetryStore;
import io.dupguard.retry.TaskState;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** What the lab's retry-log strategies share: letting the workers finish a run's tasks. */
public final class LabRetries {
    private static final long DRAIN_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private LabRetries() {}

    /** Tasks of {@code type} still PENDING or RUNNING. */
    public static long open(RetryStore store, String type) {
        RetryStats s = store.stats();
        return s.count(type, TaskState.PENDING) + s.count(type, TaskState.RUNNING);
    }

    /**
     * Lets the workers work off the log — waits until no task of {@code type} is pending or
     * running, for at most a minute — then stops them. A task left open is the checker's finding.
     */
    public static void drainThenClose(RetryStore store, String type, RetryLog retries) {
        long deadline = System.nanoTime() + DRAIN_LIMIT_NANOS;
        while (System.nanoTime() - deadline < 0 && open(store, type) > 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        retries.close();
    }
}

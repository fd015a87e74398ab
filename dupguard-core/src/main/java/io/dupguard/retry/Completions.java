package io.dupguard.retry;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Marks succeeded tasks SUCCEEDED in batches from one thread: whatever finished while the previous
 * batch was being written goes out in the next statement, so an idle log completes a task at once
 * and a busy one spends one commit on many tasks instead of one each. A task waiting here is still
 * RUNNING in the store; if the process dies first, it runs again after its lease, exactly as if its
 * worker had died after the handler returned.
 */
final class Completions implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RetryLog.class);
    private static final int MAX_BATCH = 256;

    private final RetryStore store;
    private final RetryListener listener;
    private final LinkedBlockingQueue<ClaimedTask> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean closing;

    Completions(RetryStore store, RetryListener listener, String threadName) {
        this.store = store;
        this.listener = listener;
        this.thread = new Thread(this::loop, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    void add(ClaimedTask task) {
        queue.add(task);
    }

    private void loop() {
        List<ClaimedTask> batch = new ArrayList<>();
        while (!closing || !queue.isEmpty()) {
            try {
                ClaimedTask first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH - 1);
                flush(batch);
            } catch (InterruptedException e) {
                closing = true;
                Thread.currentThread().interrupt();
                return;
            } finally {
                batch.clear();
            }
        }
    }

    private void flush(List<ClaimedTask> batch) {
        List<ClaimedTask> refused;
        try {
            refused = store.succeedAll(List.copyOf(batch));
        } catch (RuntimeException e) {
            LOG.warn(
                    "completing {} retry tasks failed; they run again after their lease: {}",
                    batch.size(),
                    e.toString());
            return;
        }
        Set<ClaimedTask> lost = new HashSet<>(refused);
        for (ClaimedTask t : batch) {
            if (lost.contains(t)) {
                listener.onLeaseLost(t.id(), t.type(), t.attempt());
                LOG.warn("retry task {} attempt {}: lease lost, another worker owns it", t.id(), t.attempt());
            } else {
                listener.onSucceeded(t.id(), t.type(), t.attempt());
            }
        }
    }

    /** Writes what is queued, then stops. */
    @Override
    public void close() {
        closing = true;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

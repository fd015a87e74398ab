package io.dupguard.retry;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where alerts go: a pager, a chat channel, a ticket. Called on a worker thread (or the caller's,
 * for {@link RetryLog#run}); must be thread-safe and should be quick — a slow sink delays the worker.
 * An exception thrown by a sink is logged and does not change the task.
 */
@FunctionalInterface
public interface AlertSink {
    /**
     * Delivers one alert.
     *
     * @param alert what happened, never null
     */
    void alert(Alert alert);

    /**
     * Logs every alert at ERROR on logger {@code io.dupguard.retry.alerts}: the default.
     *
     * @return a sink that logs each alert; thread-safe
     */
    static AlertSink logging() {
        Logger log = LoggerFactory.getLogger("io.dupguard.retry.alerts");
        return a -> log.error(
                "retry task needs attention: {} task {} type '{}' key {} attempt {}: {}",
                a.reason(),
                a.taskId(),
                a.type(),
                a.taskKey(),
                a.attempt(),
                a.error());
    }
}

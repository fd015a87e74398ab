package io.dupguard.spring.retry;

import io.dupguard.retry.RetryLog;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the {@link RetryLog}'s workers when the application context has started and closes them
 * when it stops: in the last lifecycle phase, so they start after everything their handlers use and
 * stop (waiting up to {@code dupguard.retry.shutdown-timeout} for running handlers) before the
 * DataSource and other beans are destroyed. A stopped log is not restarted (a closed {@code
 * RetryLog} stays closed); a refreshed context builds a new one.
 */
public class RetryLogLifecycle implements SmartLifecycle {
    private final RetryLog log;
    private final boolean autoStartup;
    private volatile boolean running;

    /**
     * Runs {@code log}'s workers with the application context.
     *
     * @param log the retry log; not null
     * @param autoStartup true to start the workers when the context starts ({@code
     *     dupguard.retry.auto-startup})
     * @throws NullPointerException if {@code log} is null
     */
    public RetryLogLifecycle(RetryLog log, boolean autoStartup) {
        this.log = Objects.requireNonNull(log, "log");
        this.autoStartup = autoStartup;
    }

    @Override
    public synchronized void start() {
        if (!running) {
            log.start();
            running = true;
        }
    }

    @Override
    public synchronized void stop() {
        if (running) {
            log.close();
            running = false;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }
}

package io.dupguard.retry;

import io.dupguard.internal.Checks;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

/**
 * Immutable settings of a {@link RetryLog}'s workers. Start from {@link #ofDefaults()} or {@link
 * #custom()}; every builder method rejects a bad value at once, naming the field.
 */
public final class RetryConfig {
    /** Handler threads: 4. */
    public static final int DEFAULT_WORKERS = 4;
    /** Threads claiming tasks: 1. */
    public static final int DEFAULT_POLLERS = 1;
    /** Most tasks claimed in one statement: 32. */
    public static final int DEFAULT_BATCH_SIZE = 32;
    /** Pause between polls when nothing is due and nothing signalled: 1 s. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
    /** Lease of a RUNNING task, renewed every third while its handler runs: 60 s. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);
    /** Longest pause after failed polls (store outage): 30 s. */
    public static final Duration DEFAULT_MAX_POLL_BACKOFF = Duration.ofSeconds(30);
    /** How long SUCCEEDED tasks are kept before purging: 7 days. */
    public static final Duration DEFAULT_SUCCEEDED_RETENTION = Duration.ofDays(7);
    /** Pause between purge rounds: 1 min. */
    public static final Duration DEFAULT_PURGE_INTERVAL = Duration.ofMinutes(1);
    /** Rows deleted per purge statement: 1000. */
    public static final int DEFAULT_PURGE_BATCH_SIZE = 1000;
    /** Longest wait for running handlers on {@link RetryLog#close()}: 30 s. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

    private final int workers;
    private final int pollers;
    private final int batchSize;
    private final Duration pollInterval;
    private final Duration lease;
    private final Duration maxPollBackoff;
    private final Duration succeededRetention;
    private final Duration purgeInterval;
    private final int purgeBatchSize;
    private final Duration shutdownTimeout;
    private final String owner;
    private final AlertSink alertSink;
    private final RetryListener listener;

    private RetryConfig(Builder b) {
        this.workers = b.workers;
        this.pollers = b.pollers;
        this.batchSize = b.batchSize;
        this.pollInterval = b.pollInterval;
        this.lease = b.lease;
        this.maxPollBackoff = b.maxPollBackoff;
        this.succeededRetention = b.succeededRetention;
        this.purgeInterval = b.purgeInterval;
        this.purgeBatchSize = b.purgeBatchSize;
        this.shutdownTimeout = b.shutdownTimeout;
        this.owner =
                b.owner != null ? b.owner : "w-" + UUID.randomUUID().toString().replace("-", "");
        this.alertSink = b.alertSink;
        this.listener = b.listener;
    }

    /**
     * The defaults (the {@code DEFAULT_*} constants), with a random owner id.
     *
     * @return the configuration
     */
    public static RetryConfig ofDefaults() {
        return custom().build();
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder, not thread-safe
     */
    public static Builder custom() {
        return new Builder();
    }

    /**
     * A builder starting from {@code base} (with a new owner id unless one was set explicitly).
     *
     * @param base the configuration to copy; not null
     * @return a new builder
     */
    public static Builder from(RetryConfig base) {
        Builder b = new Builder();
        b.workers = base.workers;
        b.pollers = base.pollers;
        b.batchSize = base.batchSize;
        b.pollInterval = base.pollInterval;
        b.lease = base.lease;
        b.maxPollBackoff = base.maxPollBackoff;
        b.succeededRetention = base.succeededRetention;
        b.purgeInterval = base.purgeInterval;
        b.purgeBatchSize = base.purgeBatchSize;
        b.shutdownTimeout = base.shutdownTimeout;
        b.alertSink = base.alertSink;
        b.listener = base.listener;
        return b;
    }

    /**
     * Threads that run handlers; see {@link Builder#workers}.
     *
     * @return the number of handler threads, 1–1024
     */
    public int workers() {
        return workers;
    }

    /**
     * Threads that claim due tasks; see {@link Builder#pollers}.
     *
     * @return the number of polling threads, 1–64
     */
    public int pollers() {
        return pollers;
    }

    /**
     * Most tasks claimed per poll; see {@link Builder#batchSize}.
     *
     * @return the largest claim per poll, 1–1000
     */
    public int batchSize() {
        return batchSize;
    }

    /**
     * Pause between polls that found nothing, before backoff; see {@link Builder#pollInterval}.
     *
     * @return the idle poll pause; positive
     */
    public Duration pollInterval() {
        return pollInterval;
    }

    /**
     * Lease on a claimed (RUNNING) task; after it another worker may take it over; see {@link
     * Builder#lease}.
     *
     * @return the task lease; at least 1 s
     */
    public Duration lease() {
        return lease;
    }

    /**
     * Longest pause between empty polls; see {@link Builder#maxPollBackoff}.
     *
     * @return the longest pause between empty or failed polls; positive
     */
    public Duration maxPollBackoff() {
        return maxPollBackoff;
    }

    /**
     * How long SUCCEEDED tasks are kept before the purge; see {@link Builder#succeededRetention}.
     *
     * @return the retention of succeeded tasks; positive
     */
    public Duration succeededRetention() {
        return succeededRetention;
    }

    /**
     * How often succeeded tasks are purged; see {@link Builder#purgeInterval}.
     *
     * @return the pause between purge rounds; positive
     */
    public Duration purgeInterval() {
        return purgeInterval;
    }

    /**
     * Most rows deleted per purge statement; see {@link Builder#purgeBatchSize}.
     *
     * @return the purge batch size, 1–100000
     */
    public int purgeBatchSize() {
        return purgeBatchSize;
    }

    /**
     * How long {@link RetryLog#close} waits for running handlers; see {@link
     * Builder#shutdownTimeout}.
     *
     * @return the longest wait for running handlers on close; zero or positive
     */
    public Duration shutdownTimeout() {
        return shutdownTimeout;
    }

    /**
     * This worker group's id, written as the owner of the tasks it claims.
     *
     * @return the owner id, 1–64 characters; never null
     */
    public String owner() {
        return owner;
    }

    /**
     * Where alerts go; see {@link Builder#alertSink}.
     *
     * @return the alert sink; never null
     */
    public AlertSink alertSink() {
        return alertSink;
    }

    /**
     * Who is told about runs, retries and blocks; see {@link Builder#listener}.
     *
     * @return the listener; never null (a no-op by default)
     */
    public RetryListener listener() {
        return listener;
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private int workers = DEFAULT_WORKERS;
        private int pollers = DEFAULT_POLLERS;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private Duration lease = DEFAULT_LEASE;
        private Duration maxPollBackoff = DEFAULT_MAX_POLL_BACKOFF;
        private Duration succeededRetention = DEFAULT_SUCCEEDED_RETENTION;
        private Duration purgeInterval = DEFAULT_PURGE_INTERVAL;
        private int purgeBatchSize = DEFAULT_PURGE_BATCH_SIZE;
        private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
        private String owner;
        private AlertSink alertSink = AlertSink.logging();
        private RetryListener listener = RetryListener.NONE;

        private Builder() {}

        /**
         * Handler threads, 1–1024.
         *
         * @param workers the number of handler threads, 1–1024
         * @return this builder
         * @throws IllegalArgumentException if {@code workers} is out of range
         */
        public Builder workers(int workers) {
            this.workers = range(workers, 1, 1024, "workers");
            return this;
        }

        /**
         * Threads claiming tasks, 1–64. Each claim is one commit, so one poller claims at most a
         * batch per commit latency (a few ms); more pollers claim in parallel for more throughput.
         *
         * @param pollers the number of polling threads, 1–64
         * @return this builder
         * @throws IllegalArgumentException if {@code pollers} is out of range
         */
        public Builder pollers(int pollers) {
            this.pollers = range(pollers, 1, 64, "pollers");
            return this;
        }

        /**
         * Most tasks claimed at once, 1–1000.
         *
         * @param batchSize the largest claim per poll, 1–1000
         * @return this builder
         * @throws IllegalArgumentException if {@code batchSize} is out of range
         */
        public Builder batchSize(int batchSize) {
            this.batchSize = range(batchSize, 1, 1000, "batchSize");
            return this;
        }

        /**
         * Pause between polls when idle; positive. Notifications usually wake a worker sooner.
         *
         * @param pollInterval the idle pause between polls; not null, positive
         * @return this builder
         */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = Checks.positive(pollInterval, "pollInterval");
            return this;
        }

        /**
         * Lease of a RUNNING task, at least 1 s. It is renewed while the handler runs; a task whose
         * worker died is claimed again when it ends.
         *
         * @param lease the lease of a RUNNING task; not null, at least 1 s
         * @return this builder
         */
        public Builder lease(Duration lease) {
            Checks.positive(lease, "lease");
            if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("lease must be at least PT1S, was " + lease);
            }
            this.lease = lease;
            return this;
        }

        /**
         * Longest pause after failed polls; positive.
         *
         * @param maxPollBackoff the longest pause after failed or empty polls; not null, positive
         * @return this builder
         */
        public Builder maxPollBackoff(Duration maxPollBackoff) {
            this.maxPollBackoff = Checks.positive(maxPollBackoff, "maxPollBackoff");
            return this;
        }

        /**
         * How long SUCCEEDED tasks are kept (for {@link RetryLog#status}) before purging; positive.
         *
         * @param retention how long SUCCEEDED tasks are kept; not null, positive
         * @return this builder
         */
        public Builder succeededRetention(Duration retention) {
            this.succeededRetention = Checks.positive(retention, "succeededRetention");
            return this;
        }

        /**
         * Pause between purge rounds; positive.
         *
         * @param purgeInterval the pause between purge rounds; not null, positive
         * @return this builder
         */
        public Builder purgeInterval(Duration purgeInterval) {
            this.purgeInterval = Checks.positive(purgeInterval, "purgeInterval");
            return this;
        }

        /**
         * Rows deleted per purge statement, 1–100000.
         *
         * @param purgeBatchSize rows deleted per purge statement, 1–100000
         * @return this builder
         * @throws IllegalArgumentException if {@code purgeBatchSize} is out of range
         */
        public Builder purgeBatchSize(int purgeBatchSize) {
            this.purgeBatchSize = range(purgeBatchSize, 1, 100_000, "purgeBatchSize");
            return this;
        }

        /**
         * Longest wait for running handlers when closing; zero or positive.
         *
         * @param shutdownTimeout the longest wait for running handlers on close; not null, zero or
         *     positive
         * @return this builder
         */
        public Builder shutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = Checks.notNegative(shutdownTimeout, "shutdownTimeout");
            return this;
        }

        /**
         * This worker group's id (default: random), 1–64 characters without control characters.
         *
         * @param owner the worker group's id; 1–64 characters without control characters, not null
         * @return this builder
         * @throws io.dupguard.InvalidIdentifierException (an {@code IllegalArgumentException}) if
         *     {@code owner} is null, blank, longer than 64 characters or has control characters
         */
        public Builder owner(String owner) {
            this.owner = Checks.text(owner, 64, "owner");
            return this;
        }

        /**
         * Where alerts go (first failure of a money-related type, every block); by default they are logged.
         *
         * @param alertSink thread-safe sink
         * @return this builder
         * @throws NullPointerException if {@code alertSink} is null
         */
        public Builder alertSink(AlertSink alertSink) {
            this.alertSink = Objects.requireNonNull(alertSink, "alertSink");
            return this;
        }

        /**
         * Told about runs, retries and blocks (metrics, logs); none by default.
         *
         * @param listener thread-safe listener
         * @return this builder
         * @throws NullPointerException if {@code listener} is null
         */
        public Builder listener(RetryListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @return immutable, thread-safe configuration
         */
        public RetryConfig build() {
            return new RetryConfig(this);
        }

        private static int range(int value, int min, int max, String field) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(field + " must be in [" + min + ", " + max + "], was " + value);
            }
            return value;
        }
    }
}

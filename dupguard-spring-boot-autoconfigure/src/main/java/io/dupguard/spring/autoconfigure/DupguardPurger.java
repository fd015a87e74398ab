package io.dupguard.spring.autoconfigure;

import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcPreparedSubmissions;
import io.dupguard.jdbc.JdbcProcessedMessages;
import io.dupguard.jdbc.JdbcSubmissionTokens;
import io.dupguard.jdbc.PacedPurge;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Deletes expired idempotency records, expired processed messages, expired tokens and old unbound prepared submissions of the
 * jdbc store, every {@code dupguard.purge.interval}, in batches of {@code dupguard.purge.batch-size}
 * rows, paced by {@code dupguard.purge.duty-cycle} ({@link PacedPurge}): a run deletes until each
 * table's backlog is gone (or {@code dupguard.purge.max-batches-per-run} batches, if set), pausing
 * after each batch so that deleting takes at most that share of the time. Runs on one daemon thread
 * of its own; a failed run is logged and the next one tries again. Off with {@code
 * dupguard.purge.enabled=false}.
 */
public class DupguardPurger implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(DupguardPurger.class);

    /**
     * Rows deleted by one run, per table.
     *
     * @param idempotency expired idempotency records deleted
     * @param tokens expired submission tokens deleted
     * @param prepared old unbound prepared submissions deleted
     * @param processed expired processed messages deleted
     */
    public record Result(long idempotency, long tokens, long prepared, long processed) {}

    private final JdbcIdempotencyStore idempotency;
    private final JdbcSubmissionTokens tokens;
    private final JdbcPreparedSubmissions prepared;
    private final JdbcProcessedMessages processed;
    private final Duration interval;
    private final int batchSize;
    private final PacedPurge pacing;
    private final Duration preparedRetention;
    private ScheduledExecutorService scheduler;

    /**
     * A purger of the given stores, as {@code dupguard.purge.*} configures it.
     *
     * @param idempotency the idempotency store, or null if it is not a jdbc store
     * @param tokens the token store, or null if there is none
     * @param prepared the prepared submissions, or null if there are none
     * @param p the {@code dupguard.purge.*} properties; not null
     * @throws InvalidDupguardPropertyException if a property is out of range
     */
    public DupguardPurger(
            JdbcIdempotencyStore idempotency,
            JdbcSubmissionTokens tokens,
            JdbcPreparedSubmissions prepared,
            DupguardProperties.Purge p) {
        this(idempotency, tokens, prepared, null, p);
    }

    /**
     * A purger of the given stores and processed-messages table, as {@code dupguard.purge.*}
     * configures it.
     *
     * @param idempotency the idempotency store, or null if it is not a jdbc store
     * @param tokens the token store, or null if there is none
     * @param prepared the prepared submissions, or null if there are none
     * @param processed the processed-messages table, or null if there is none
     * @param p the {@code dupguard.purge.*} properties; not null
     * @throws InvalidDupguardPropertyException if a property is out of range
     */
    public DupguardPurger(
            JdbcIdempotencyStore idempotency,
            JdbcSubmissionTokens tokens,
            JdbcPreparedSubmissions prepared,
            JdbcProcessedMessages processed,
            DupguardProperties.Purge p) {
        this.idempotency = idempotency;
        this.tokens = tokens;
        this.prepared = prepared;
        this.processed = processed;
        if (p.getInterval() == null
                || p.getInterval().isNegative()
                || p.getInterval().isZero()) {
            throw new InvalidDupguardPropertyException("dupguard.purge.interval", p.getInterval(), "must be positive");
        }
        if (p.getBatchSize() < 1 || p.getBatchSize() > 100_000) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.purge.batch-size", p.getBatchSize(), "must be between 1 and 100000");
        }
        if (p.getMaxBatchesPerRun() < 0) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.purge.max-batches-per-run", p.getMaxBatchesPerRun(), "must be at least 0 (0: no cap)");
        }
        if (!(p.getDutyCycle() > 0 && p.getDutyCycle() <= 1)) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.purge.duty-cycle",
                    p.getDutyCycle(),
                    "must be more than 0 and at most 1 (1: batches back to back)");
        }
        if (p.getPreparedRetention() == null
                || p.getPreparedRetention().isNegative()
                || p.getPreparedRetention().isZero()) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.purge.prepared-retention", p.getPreparedRetention(), "must be positive");
        }
        this.interval = p.getInterval();
        this.batchSize = p.getBatchSize();
        this.pacing = PacedPurge.dutyCycle(p.getDutyCycle()).maxBatches(p.getMaxBatchesPerRun());
        this.preparedRetention = p.getPreparedRetention();
    }

    /**
     * One paced run over every table; what the scheduler calls. An interrupt (the application
     * stopping) ends it after the batch in progress.
     *
     * @return the rows deleted per table; never null
     */
    public Result purgeOnce() {
        long i = drain(idempotency == null ? null : idempotency::purgeExpired);
        long t = drain(tokens == null ? null : tokens::purgeExpired);
        long p = drain(prepared == null ? null : n -> prepared.purgeUnbound(preparedRetention, n));
        long m = drain(processed == null ? null : processed::purgeExpired);
        return new Result(i, t, p, m);
    }

    private long drain(IntUnaryOperator batch) {
        if (batch == null || Thread.currentThread().isInterrupted()) {
            return 0;
        }
        return pacing.drain(batchSize, batch);
    }

    private void run() {
        try {
            Result r = purgeOnce();
            if (r.idempotency() + r.tokens() + r.prepared() + r.processed() > 0) {
                LOG.debug("dupguard purge deleted {}", r);
            }
        } catch (RuntimeException e) {
            LOG.warn("dupguard purge failed; the next run in {} tries again", interval, e);
        }
    }

    @Override
    public synchronized void start() {
        if (scheduler == null) {
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "dupguard-purge");
                t.setDaemon(true);
                return t;
            });
            scheduler.scheduleWithFixedDelay(
                    this::run, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return scheduler != null;
    }
}

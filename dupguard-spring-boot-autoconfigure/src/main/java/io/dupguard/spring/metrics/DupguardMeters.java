package io.dupguard.spring.metrics;

import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyListener;
import io.dupguard.lock.Lease;
import io.dupguard.retry.Alert;
import io.dupguard.retry.RetryListener;
import io.dupguard.spring.annotation.LockObserver;
import io.dupguard.spring.web.IdempotencyKeyFilter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Micrometer meters of dupguard. Tags take values from small fixed sets only (never keys, scopes or
 * lock names, which are unbounded):
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th></tr>
 *   <tr><td>dupguard.idempotency.calls</td><td>counter</td><td>outcome = first, replayed, in_flight,
 *       mismatch, error</td></tr>
 *   <tr><td>dupguard.idempotency.duration</td><td>timer</td><td>— (first calls: claim to completion)</td></tr>
 *   <tr><td>dupguard.idempotency.takeovers</td><td>counter</td><td>—</td></tr>
 *   <tr><td>dupguard.idempotency.lease.lost</td><td>counter</td><td>—</td></tr>
 *   <tr><td>dupguard.lock.wait</td><td>timer</td><td>result = acquired, unavailable</td></tr>
 *   <tr><td>dupguard.lock.held</td><td>timer</td><td>—</td></tr>
 *   <tr><td>dupguard.lock.lease.lost</td><td>counter</td><td>—</td></tr>
 *   <tr><td>dupguard.http.replays</td><td>counter</td><td>—</td></tr>
 *   <tr><td>dupguard.http.problems</td><td>counter</td><td>type = key-missing, key-invalid, key-reused,
 *       request-in-flight, response-not-replayable, request-too-large, store-unavailable</td></tr>
 *   <tr><td>dupguard.tokens.issued</td><td>counter</td><td>—</td></tr>
 *   <tr><td>dupguard.tokens.consumed</td><td>counter</td><td>result = consumed, rejected</td></tr>
 *   <tr><td>dupguard.throttle.calls</td><td>counter</td><td>result = allowed, refused</td></tr>
 *   <tr><td>dupguard.retry.tasks</td><td>counter</td><td>outcome = succeeded, retry_scheduled, blocked,
 *       lease_lost</td></tr>
 *   <tr><td>dupguard.retry.poll.failures</td><td>counter</td><td>—</td></tr>
 * </table>
 *
 * <p>Thread-safe; meters are registered on first use.
 */
public class DupguardMeters implements IdempotencyListener, LockObserver, IdempotencyKeyFilter.Listener, RetryListener {
    private final Supplier<MeterRegistry> registry;

    /**
     * Meters registered in the registry {@code registry} supplies, looked up on first use.
     *
     * @param registry supplies the meter registry; not null
     */
    public DupguardMeters(Supplier<MeterRegistry> registry) {
        this.registry = registry;
    }

    private void count(String name, String... tags) {
        MeterRegistry r = registry.get();
        if (r != null) {
            Counter.builder(name).tags(tags).register(r).increment();
        }
    }

    private void time(String name, long nanos, String... tags) {
        MeterRegistry r = registry.get();
        if (r != null) {
            Timer.builder(name).tags(tags).register(r).record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void onFirst(IdempotencyKey key, long nanos) {
        count("dupguard.idempotency.calls", "outcome", "first");
        time("dupguard.idempotency.duration", nanos);
    }

    @Override
    public void onReplay(IdempotencyKey key) {
        count("dupguard.idempotency.calls", "outcome", "replayed");
    }

    @Override
    public void onInFlight(IdempotencyKey key) {
        count("dupguard.idempotency.calls", "outcome", "in_flight");
    }

    @Override
    public void onMismatch(IdempotencyKey key) {
        count("dupguard.idempotency.calls", "outcome", "mismatch");
    }

    @Override
    public void onFailure(IdempotencyKey key, Throwable failure, boolean stored) {
        count("dupguard.idempotency.calls", "outcome", "error");
    }

    @Override
    public void onTakeover(IdempotencyKey key) {
        count("dupguard.idempotency.takeovers");
    }

    @Override
    public void onLeaseLost(IdempotencyKey key) {
        count("dupguard.idempotency.lease.lost");
    }

    @Override
    public void onAcquired(Lease lease, long waitNanos) {
        time("dupguard.lock.wait", waitNanos, "result", "acquired");
    }

    @Override
    public void onUnavailable(String name, long waitNanos) {
        time("dupguard.lock.wait", waitNanos, "result", "unavailable");
    }

    @Override
    public void onReleased(Lease lease, long heldNanos) {
        time("dupguard.lock.held", heldNanos);
    }

    @Override
    public void onLeaseLost(Lease lease) {
        count("dupguard.lock.lease.lost");
    }

    @Override
    public void onReplay() {
        count("dupguard.http.replays");
    }

    @Override
    public void onProblem(String type) {
        count("dupguard.http.problems", "type", type);
    }

    @Override
    public void onSucceeded(long taskId, String type, int attempt) {
        count("dupguard.retry.tasks", "outcome", "succeeded");
    }

    @Override
    public void onRetryScheduled(long taskId, String type, int attempt, long delayMillis, Throwable failure) {
        count("dupguard.retry.tasks", "outcome", "retry_scheduled");
    }

    @Override
    public void onBlocked(long taskId, String type, int attempt, Alert.Reason reason, String error) {
        count("dupguard.retry.tasks", "outcome", "blocked");
    }

    @Override
    public void onLeaseLost(long taskId, String type, int attempt) {
        count("dupguard.retry.tasks", "outcome", "lease_lost");
    }

    @Override
    public void onPollFailed(Throwable failure) {
        count("dupguard.retry.poll.failures");
    }

    /** A submission token was issued. */
    public void onTokenIssued() {
        count("dupguard.tokens.issued");
    }

    /**
     * A token was presented: consumed (the first submit) or rejected (unknown, used, expired,
     * foreign).
     *
     * @param consumed true if the token was consumed, false if it was rejected
     */
    public void onTokenConsumed(boolean consumed) {
        count("dupguard.tokens.consumed", "result", consumed ? "consumed" : "rejected");
    }

    /**
     * A throttle window was asked for: allowed (the window starts) or refused.
     *
     * @param allowed true if the window started, false if the call was refused
     */
    public void onThrottle(boolean allowed) {
        count("dupguard.throttle.calls", "result", allowed ? "allowed" : "refused");
    }
}

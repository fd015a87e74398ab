package io.dupguard.spring.metrics;

import io.dupguard.token.SubmitThrottle;
import java.time.Duration;
import java.util.Objects;

/**
 * Counts {@code dupguard.throttle.calls} (result = allowed, refused) around a {@link
 * SubmitThrottle}; a store failure is counted nowhere and propagates. Thread-safe.
 */
public final class MeteredSubmitThrottle implements SubmitThrottle, MeteredBean {
    private final SubmitThrottle target;
    private final DupguardMeters meters;

    /**
     * Counts the calls on {@code target}.
     *
     * @param target the throttle; not null
     * @param meters the meters; not null
     * @throws NullPointerException if an argument is null
     */
    public MeteredSubmitThrottle(SubmitThrottle target, DupguardMeters meters) {
        this.target = Objects.requireNonNull(target, "target");
        this.meters = Objects.requireNonNull(meters, "meters");
    }

    @Override
    public boolean tryAcquire(String scope, String subject, Duration window) {
        boolean allowed = target.tryAcquire(scope, subject, window);
        meters.onThrottle(allowed);
        return allowed;
    }

    @Override
    public SubmitThrottle target() {
        return target;
    }

    @Override
    public String toString() {
        return "Metered[" + target + "]";
    }
}

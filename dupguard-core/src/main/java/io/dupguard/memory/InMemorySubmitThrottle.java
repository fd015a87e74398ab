package io.dupguard.memory;

import io.dupguard.internal.Checks;
import io.dupguard.internal.Tokens;
import io.dupguard.token.SubmitThrottle;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** {@link SubmitThrottle} in this JVM's memory; one atomic {@code compute} per call. Thread-safe. */
public final class InMemorySubmitThrottle implements SubmitThrottle {
    private final ConcurrentHashMap<String, Long> windowEnds = new ConcurrentHashMap<>();
    private final Clock clock;

    /** An empty throttle on the system clock, for this JVM only. */
    public InMemorySubmitThrottle() {
        this(Clock.systemUTC());
    }

    /**
     * An empty throttle whose expiry follows {@code clock} (tests inject a controllable one).
     *
     * @param clock the clock
     * @throws NullPointerException if {@code clock} is null
     */
    public InMemorySubmitThrottle(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public boolean tryAcquire(String scope, String subject, Duration window) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        long windowMillis = Checks.millis(Checks.positive(window, "window"));
        long now = clock.millis();
        boolean[] won = {false};
        windowEnds.compute(scope + ':' + subject, (k, end) -> {
            if (end != null && end > now) {
                return end;
            }
            won[0] = true;
            return now + windowMillis;
        });
        return won[0];
    }
}

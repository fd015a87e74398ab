package io.dupguard.memory;

import io.dupguard.internal.Checks;
import io.dupguard.internal.Tokens;
import io.dupguard.token.SubmissionTokens;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link SubmissionTokens} in this JVM's memory. Consume is one atomic {@code remove(key, value)}
 * on a map keyed by scope and token; expiry follows the given {@link Clock}. Thread-safe.
 */
public final class InMemorySubmissionTokens implements SubmissionTokens {
    private final ConcurrentHashMap<String, Issued> tokens = new ConcurrentHashMap<>();
    private final Clock clock;

    private record Issued(String subject, long expiresAtMillis) {}

    /** An empty store on the system clock, for this JVM only. */
    public InMemorySubmissionTokens() {
        this(Clock.systemUTC());
    }

    /**
     * An empty store whose expiry follows {@code clock} (tests inject a controllable one).
     *
     * @param clock the clock
     * @throws NullPointerException if {@code clock} is null
     */
    public InMemorySubmissionTokens(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public String issue(String scope, String subject, Duration ttl) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        long ttlMillis = Checks.millis(Checks.positive(ttl, "ttl"));
        String token = Tokens.newToken();
        tokens.put(scope + ':' + token, new Issued(subject, clock.millis() + ttlMillis));
        return token;
    }

    @Override
    public boolean consume(String scope, String subject, String token) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        String key = scope + ':' + token;
        Issued issued = tokens.get(key);
        if (issued == null || !issued.subject.equals(subject)) {
            return false;
        }
        // remove(key, value): of many concurrent consumers exactly one removes this very entry.
        boolean removed = tokens.remove(key, issued);
        return removed && issued.expiresAtMillis > clock.millis();
    }

    /**
     * Drops expired tokens; returns how many.
     *
     * @return the number of tokens dropped
     */
    public int purgeExpired() {
        long now = clock.millis();
        int[] n = {0};
        tokens.forEach((k, v) -> {
            if (v.expiresAtMillis <= now && tokens.remove(k, v)) {
                n[0]++;
            }
        });
        return n[0];
    }
}

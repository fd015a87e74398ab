package io.dupguard.memory;

import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.idempotency.Outcome;
import io.dupguard.internal.Checks;
import io.dupguard.internal.Tokens;
import io.dupguard.token.PreparedSubmissions;
import io.dupguard.token.UnknownSubmissionException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link PreparedSubmissions} in this JVM's memory. A commit holds the pre-id's monitor while the
 * work runs, the in-memory counterpart of the JDBC backend's row lock. Thread-safe.
 */
public final class InMemoryPreparedSubmissions implements PreparedSubmissions {
    /** How long an unbound pre-id lives. */
    public static final Duration DEFAULT_RETENTION = Duration.ofHours(12);

    private final ConcurrentHashMap<String, Prepared> prepared = new ConcurrentHashMap<>();
    private final Clock clock;

    private static final class Prepared {
        final String subject;
        final long createdAtMillis;
        String businessId; // guarded by this

        Prepared(String subject, long createdAtMillis) {
            this.subject = subject;
            this.createdAtMillis = createdAtMillis;
        }
    }

    /** An empty store on the system clock, for this JVM only. */
    public InMemoryPreparedSubmissions() {
        this(Clock.systemUTC());
    }

    /**
     * An empty store whose expiry follows {@code clock} (tests inject a controllable one).
     *
     * @param clock the clock
     * @throws NullPointerException if {@code clock} is null
     */
    public InMemoryPreparedSubmissions(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public String prepare(String subject) {
        Tokens.checkSubject(subject);
        String preId = Tokens.newToken();
        prepared.put(preId, new Prepared(subject, clock.millis()));
        return preId;
    }

    @Override
    public <E extends Exception> Outcome<String> commit(String subject, String preId, IdempotentWork<String, E> work)
            throws E {
        Tokens.checkSubject(subject);
        Prepared p = Tokens.wellFormed(preId) ? prepared.get(preId) : null;
        if (p == null || !p.subject.equals(subject)) {
            throw new UnknownSubmissionException();
        }
        synchronized (p) {
            if (p.businessId != null) {
                return Outcome.replayed(p.businessId);
            }
            String id = Objects.requireNonNull(work.call(), "work must return the business id");
            p.businessId = id;
            return Outcome.first(id);
        }
    }

    /**
     * Drops unbound pre-ids older than {@code retention}; returns how many.
     *
     * @param retention the age after which an unbound pre-id is dropped; not null, positive
     * @return the number of pre-ids dropped
     */
    public int purgeUnbound(Duration retention) {
        long cutoff = clock.millis() - Checks.millis(Checks.positive(retention, "retention"));
        int[] n = {0};
        prepared.forEach((k, p) -> {
            synchronized (p) {
                if (p.businessId == null && p.createdAtMillis < cutoff && prepared.remove(k, p)) {
                    n[0]++;
                }
            }
        });
        return n[0];
    }
}

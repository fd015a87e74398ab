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
 * on a map keyed by scope and token, a lease one atomic {@code replace(key, old, new)}; expiry of
 * tokens and leases follows the given {@link Clock}. Thread-safe.
 */
public final class InMemorySubmissionTokens implements SubmissionTokens {
    private final ConcurrentHashMap<String, Issued> tokens = new ConcurrentHashMap<>();
    private final Clock clock;

    /** A token; {@code owner} non-null while a lease marks it in use (until {@code leaseUntilMillis}). */
    private record Issued(String subject, long expiresAtMillis, String owner, long leaseUntilMillis) {
        boolean leasedAt(long now) {
            return owner != null && leaseUntilMillis > now;
        }
    }

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
        tokens.put(scope + ':' + token, new Issued(subject, saturatedSum(clock.millis(), ttlMillis), null, 0));
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
        long now = clock.millis();
        if (issued == null || !issued.subject.equals(subject) || issued.leasedAt(now)) {
            return false;
        }
        // remove(key, value): of many concurrent consumers exactly one removes this very entry.
        boolean removed = tokens.remove(key, issued);
        return removed && issued.expiresAtMillis > now;
    }

    @Override
    public boolean tryLease(String scope, String subject, String token, String owner, Duration lease) {
        long leaseMillis = Tokens.checkClaim(scope, subject, owner, lease);
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        String key = scope + ':' + token;
        Issued issued = tokens.get(key);
        long now = clock.millis();
        if (issued == null
                || !issued.subject.equals(subject)
                || issued.expiresAtMillis <= now
                || issued.leasedAt(now)) {
            return false;
        }
        // replace(key, old, new): of many concurrent claimers exactly one replaces this very entry.
        return tokens.replace(
                key, issued, new Issued(issued.subject, issued.expiresAtMillis, owner, saturatedSum(now, leaseMillis)));
    }

    @Override
    public boolean leased(String scope, String token) {
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        Issued issued = tokens.get(scope + ':' + token);
        return issued != null && issued.leasedAt(clock.millis());
    }

    @Override
    public boolean renewLease(String scope, String token, String owner, Duration lease) {
        long leaseMillis = Checks.millis(Checks.positive(lease, "lease"));
        boolean[] renewed = {false};
        tokens.computeIfPresent(scope + ':' + token, (k, v) -> {
            if (!owner.equals(v.owner)) {
                return v;
            }
            renewed[0] = true;
            return new Issued(v.subject, v.expiresAtMillis, owner, saturatedSum(clock.millis(), leaseMillis));
        });
        return renewed[0];
    }

    @Override
    public boolean completeLease(String scope, String token, String owner) {
        boolean[] completed = {false};
        // The owner's work ran: the token is spent whoever holds it now, so no later attempt runs
        // the work again. True only if the lease was this owner's, or nobody's.
        tokens.computeIfPresent(scope + ':' + token, (k, v) -> {
            completed[0] = v.owner == null || owner.equals(v.owner);
            return null;
        });
        return completed[0];
    }

    @Override
    public void releaseLease(String scope, String token, String owner) {
        tokens.computeIfPresent(
                scope + ':' + token,
                (k, v) -> owner.equals(v.owner) ? new Issued(v.subject, v.expiresAtMillis, null, 0) : v);
    }

    private static long saturatedSum(long a, long b) {
        long sum = a + b;
        return sum < a ? Long.MAX_VALUE : sum;
    }

    /**
     * Drops expired tokens that no lease holds; returns how many.
     *
     * @return the number of tokens dropped
     */
    public int purgeExpired() {
        long now = clock.millis();
        int[] n = {0};
        tokens.forEach((k, v) -> {
            if (v.expiresAtMillis <= now && !v.leasedAt(now) && tokens.remove(k, v)) {
                n[0]++;
            }
        });
        return n[0];
    }
}

package io.dupguard.spring.metrics;

import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.TokenRefusedException;
import java.time.Duration;
import java.util.Objects;

/**
 * Counts {@code dupguard.tokens.issued} and {@code dupguard.tokens.consumed} (result = consumed,
 * rejected) around a {@link SubmissionTokens}: a one-call {@code consume} counts as consumed or
 * rejected; a two-phase submit ({@code execute}, {@code claim}) counts as rejected when its claim is
 * refused and as consumed when it completes (a failed attempt, whose token is put back, counts
 * nowhere). The waiting {@code execute} counts once: consumed when its work completed, rejected when
 * it gave up; the polls while another attempt holds the token count nowhere. A store failure is
 * counted nowhere and propagates. Thread-safe.
 */
public final class MeteredSubmissionTokens implements SubmissionTokens, MeteredBean {
    private final SubmissionTokens target;
    private final DupguardMeters meters;
    /** Set on a thread while the waiting form polls: its refused claims count nowhere. */
    private static final ThreadLocal<Boolean> POLLING = new ThreadLocal<>();

    /**
     * Counts the calls on {@code target}.
     *
     * @param target the token store; not null
     * @param meters the meters; not null
     * @throws NullPointerException if an argument is null
     */
    public MeteredSubmissionTokens(SubmissionTokens target, DupguardMeters meters) {
        this.target = Objects.requireNonNull(target, "target");
        this.meters = Objects.requireNonNull(meters, "meters");
    }

    @Override
    public String issue(String scope, String subject, Duration ttl) {
        String token = target.issue(scope, subject, ttl);
        meters.onTokenIssued();
        return token;
    }

    @Override
    public boolean consume(String scope, String subject, String token) {
        boolean consumed = target.consume(scope, subject, token);
        meters.onTokenConsumed(consumed);
        return consumed;
    }

    @Override
    public boolean tryLease(String scope, String subject, String token, String owner, Duration lease) {
        boolean claimed = target.tryLease(scope, subject, token, owner, lease);
        if (!claimed && POLLING.get() == null) {
            meters.onTokenConsumed(false);
        }
        return claimed;
    }

    @Override
    public <T, E extends Exception> T execute(
            String scope, String subject, String token, Duration lease, Duration maxWait, IdempotentWork<T, E> work)
            throws E {
        Objects.requireNonNull(work, "work");
        boolean[] ran = {false};
        Boolean outer = POLLING.get();
        POLLING.set(Boolean.TRUE);
        try {
            return SubmissionTokens.super.execute(scope, subject, token, lease, maxWait, () -> {
                restore(outer); // the work's own calls count as usual
                ran[0] = true;
                return work.call();
            });
        } catch (TokenRefusedException e) {
            if (!ran[0]) {
                meters.onTokenConsumed(false);
            }
            throw e;
        } finally {
            restore(outer);
        }
    }

    private static void restore(Boolean outer) {
        if (outer == null) {
            POLLING.remove();
        } else {
            POLLING.set(outer);
        }
    }

    @Override
    public boolean leased(String scope, String token) {
        return target.leased(scope, token);
    }

    @Override
    public boolean renewLease(String scope, String token, String owner, Duration lease) {
        return target.renewLease(scope, token, owner, lease);
    }

    @Override
    public boolean completeLease(String scope, String token, String owner) {
        boolean completed = target.completeLease(scope, token, owner);
        if (completed) {
            meters.onTokenConsumed(true);
        }
        return completed;
    }

    @Override
    public void releaseLease(String scope, String token, String owner) {
        target.releaseLease(scope, token, owner);
    }

    @Override
    public SubmissionTokens target() {
        return target;
    }

    @Override
    public String toString() {
        return "Metered[" + target + "]";
    }
}

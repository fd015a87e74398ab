package io.dupguard.token;

import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.internal.Checks;
import io.dupguard.internal.Watchdog;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A submission token marked in use by this call ({@link SubmissionTokens#claim}); the lease is
 * renewed from the shared watchdog until the claim ends. End it exactly once: {@link #complete()}
 * after the work succeeded (the token is deleted), {@link #release()} after it failed (the token is
 * usable again). {@link #close()} releases a claim that was not completed, so try-with-resources
 * puts the token back on every failure path:
 *
 * <pre>{@code
 * Optional<TokenClaim> claimed = tokens.claim("checkout", userId, submittedToken);
 * if (claimed.isEmpty()) return "already submitted";
 * try (TokenClaim claim = claimed.get()) {
 *     String id = orders.place(cart);
 *     claim.complete();
 *     return id;
 * }
 * }</pre>
 *
 * <p>A final write (complete, release) that meets a store blip is retried with the watchdog's
 * backoff while the lease holds. Thread-safe.
 */
public final class TokenClaim implements AutoCloseable {
    private static final long MIN_POLL_NANOS = Duration.ofMillis(1).toNanos();
    private static final long MAX_POLL_NANOS = Duration.ofMillis(50).toNanos();

    private final SubmissionTokens tokens;
    private final String scope;
    private final String token;
    private final String owner;
    private final Duration lease;
    private final long claimSent;
    private final Watchdog.Renewal renewal;
    private final AtomicBoolean ended = new AtomicBoolean();

    private TokenClaim(SubmissionTokens tokens, String scope, String token, String owner, Duration lease, long sent) {
        this.tokens = tokens;
        this.scope = scope;
        this.token = token;
        this.owner = owner;
        this.lease = lease;
        this.claimSent = sent;
        this.renewal =
                Watchdog.shared().start(lease, sent, () -> tokens.renewLease(scope, token, owner, lease), () -> {});
    }

    /** Claims the token for {@code owner}; a claim whose answer was lost is withdrawn before the outage propagates. */
    static Optional<TokenClaim> open(
            SubmissionTokens tokens, String scope, String subject, String token, String owner, Duration lease) {
        long sent = System.nanoTime();
        boolean claimed;
        try {
            claimed = tokens.tryLease(scope, subject, token, owner, lease);
        } catch (StoreUnavailableException unknownOutcome) {
            // The mark may still have been written (a command that timed out here runs when the
            // server wakes up) and would keep every retry out for a whole lease: withdraw it.
            // Release compares the owner, so it is harmless if nothing was written.
            try {
                tokens.releaseLease(scope, token, owner);
            } catch (RuntimeException e) {
                unknownOutcome.addSuppressed(e);
            }
            throw unknownOutcome;
        }
        return claimed ? Optional.of(new TokenClaim(tokens, scope, token, owner, lease, sent)) : Optional.empty();
    }

    /**
     * Claims the token, waiting up to {@code maxWait} while another attempt holds it (polling with
     * a backoff from 1 ms to 50 ms).
     */
    static Optional<TokenClaim> awaitClaim(
            SubmissionTokens tokens, String scope, String subject, String token, Duration lease, Duration maxWait) {
        long deadline = System.nanoTime() + Checks.saturatedNanos(maxWait);
        long pause = MIN_POLL_NANOS;
        while (true) {
            Optional<TokenClaim> claim = tokens.claim(scope, subject, token, lease);
            if (claim.isPresent()) {
                return claim;
            }
            if (!tokens.leased(scope, token)) {
                // Released between the two reads, or spent: one more claim tells which.
                claim = tokens.claim(scope, subject, token, lease);
                if (claim.isPresent() || !tokens.leased(scope, token)) {
                    return claim;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            LockSupport.parkNanos(Math.min(pause, left));
            pause = Math.min(pause * 2, MAX_POLL_NANOS);
        }
    }

    /**
     * Deletes the token: the submit took effect and the token is never usable again.
     *
     * @throws IllegalStateException if the claim already ended
     * @throws LeaseLostException the lease ran out and another submit took the token over
     * @throws StoreUnavailableException the store stayed unreachable for the rest of the lease
     */
    public void complete() {
        end();
        long validUntil = renewal.validUntilNanos();
        boolean[] sent = {false};
        Watchdog.retryWithinLease(validUntil, lease, () -> {
            boolean resent = sent[0];
            sent[0] = true;
            if (!tokens.completeLease(scope, token, owner)
                    // A completion sent again after an attempt whose answer was lost finds the
                    // token gone: while the lease holds nobody else can spend it, so that attempt
                    // deleted it.
                    && !(resent && System.nanoTime() - validUntil < 0)) {
                throw new LeaseLostException(
                        scope, "the submission token's lease ran out and another submit took it over");
            }
        });
    }

    /**
     * Makes the token usable again: the submit did not take effect and a retry may run.
     *
     * @throws IllegalStateException if the claim already ended
     * @throws StoreUnavailableException the store stayed unreachable for the rest of the lease (the
     *     token is then usable again once the lease runs out)
     */
    public void release() {
        end();
        Watchdog.retryWithinLease(renewal.validUntilNanos(), lease, () -> tokens.releaseLease(scope, token, owner));
    }

    /** Releases the claim unless it was completed or released. */
    @Override
    public void close() {
        if (!ended.get()) {
            release();
        }
    }

    /**
     * Whether the lease ended while the claim was open: a renewal was refused, or none succeeded in
     * time. Another submit may then have taken the token over.
     *
     * @return true if the lease was lost
     */
    public boolean leaseLost() {
        return renewal.lost();
    }

    private void end() {
        if (!ended.compareAndSet(false, true)) {
            throw new IllegalStateException("the token claim already ended (complete or release was called)");
        }
        renewal.stop();
    }

    /** Runs {@code work} under this claim: complete if it returns, release if it throws. */
    <T, E extends Exception> T run(IdempotentWork<T, E> work) throws E {
        T value;
        try {
            value = work.call();
        } catch (Throwable failure) {
            end();
            try {
                // Once: the work's own failure is what the caller must see, now; if the store does
                // not answer, the lease runs out and frees the token anyway.
                tokens.releaseLease(scope, token, owner);
            } catch (RuntimeException storeFailure) {
                failure.addSuppressed(storeFailure);
            }
            throw TokenClaim.<RuntimeException>sneaky(failure);
        }
        complete();
        return value;
    }

    @SuppressWarnings("unchecked")
    private static <X extends Throwable> RuntimeException sneaky(Throwable t) throws X {
        throw (X) t;
    }

    @Override
    public String toString() {
        return "TokenClaim[" + scope + "]";
    }
}

package io.dupguard.token;

import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.internal.Checks;
import io.dupguard.internal.Owners;
import io.dupguard.internal.Watchdog;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One-time submission tokens against duplicate form submits (guarantee T1).
 *
 * <p>The server issues a token when it renders the form; the submit carries it. Two ways to spend
 * it:
 *
 * <ul>
 *   <li><b>Two-phase</b> ({@link #execute execute}, or {@link #claim claim} with {@link
 *       TokenClaim#complete complete} / {@link TokenClaim#release release}): the submit marks the
 *       token in use under a lease, runs the work, then deletes the token if the work succeeded or
 *       puts it back if it failed. A concurrent duplicate (a double click) while the work runs is
 *       refused; a retry after a failed attempt runs; a process that dies during the work leaves a
 *       lease that runs out ({@link #DEFAULT_LEASE}, renewed while the process lives), after which
 *       the token is usable again.
 *   <li><b>One call</b> ({@link #consume consume}): deletes the token atomically before the work.
 *       <b>A failed attempt burns the token</b>: when the work then fails (a store stall, a killed
 *       connection, a crashed instance), every retry of that submit is refused as "already
 *       submitted" although nothing took effect.
 * </ul>
 *
 * <pre>{@code
 * String token = tokens.issue("checkout", userId, Duration.ofMinutes(30));   // render the form
 * // on submit:
 * try {
 *     return tokens.execute("checkout", userId, submittedToken, () -> orders.place(cart));
 * } catch (TokenRefusedException e) {
 *     return "already submitted";
 * }
 * }</pre>
 *
 * <p>A token is bound to the subject it was issued to: spending it as another subject, after its
 * time-to-live, a second time, or in a malformed shape is refused (false, empty, {@link
 * TokenRefusedException}) — never an error that would reveal whether the token exists. Never
 * select-then-delete: two concurrent submits would both see the token.
 *
 * <p>The lease steps ({@link #tryLease}, {@link #renewLease}, {@link #completeLease}, {@link
 * #releaseLease}) are what a store implements; applications call {@link #execute} or {@link
 * #claim}, which drive them, renew the lease from the shared watchdog and retry a final write that
 * meets a store blip while the lease holds. Every store proves the contract by running {@code
 * AbstractSubmissionTokensContractTest} from {@code dupguard-test-support} against a real server.
 *
 * <p>Implementations are thread-safe; a store outage throws {@link
 * io.dupguard.StoreUnavailableException}, never a refusal.
 */
public interface SubmissionTokens {

    /**
     * Lease of {@link #claim(String, String, String)} and {@link #execute(String, String, String,
     * IdempotentWork)}: 30 s, renewed every third while the process lives.
     */
    Duration DEFAULT_LEASE = Duration.ofSeconds(30);

    /** Shortest lease of {@link #claim(String, String, String, Duration)}: the watchdog must renew it in time. */
    Duration MIN_LEASE = Watchdog.MIN_LEASE;

    /**
     * Issues a fresh token (≥ 128 random bits from {@link java.security.SecureRandom}, URL-safe
     * base64 without padding) for {@code subject}, valid for {@code ttl}.
     *
     * @param scope the form or operation the token is for; a valid identifier, not null
     * @param subject who the token is for (a user or session id); a valid identifier, not null
     * @param ttl how long the token can be spent; not null, positive
     * @return the token, URL-safe; never null
     * @throws io.dupguard.InvalidIdentifierException for a bad scope or subject
     * @throws IllegalArgumentException for a non-positive ttl
     */
    String issue(String scope, String subject, Duration ttl);

    /**
     * Spends the token in one atomic delete, before the work: true for exactly one caller, the
     * first; false when it is unknown, expired, already spent, in use by a {@link #claim claim},
     * issued to another subject or malformed.
     *
     * <p><b>A failed attempt burns the token.</b> Whatever the caller does after a true answer, the
     * token is gone: if that work fails, a retry of the same submit is refused. Use {@link #execute}
     * (or {@link #claim}) for submits whose work can fail.
     *
     * @param scope the scope it was issued for; not null
     * @param subject the subject presenting it; not null
     * @param token the token as received; may be null or malformed (then false)
     * @return true for the first consumption of a live token issued to this scope and subject;
     *     false otherwise
     * @throws io.dupguard.InvalidIdentifierException for a bad scope or subject
     */
    boolean consume(String scope, String subject, String token);

    /**
     * {@link #claim(String, String, String, Duration)} with the {@link #DEFAULT_LEASE}.
     *
     * @param scope the scope it was issued for; not null
     * @param subject the subject presenting it; not null
     * @param token the token as received; may be null or malformed (then empty)
     * @return the claim, to complete or release; empty if the token cannot be spent now
     * @throws io.dupguard.InvalidIdentifierException for a bad scope or subject
     */
    default Optional<TokenClaim> claim(String scope, String subject, String token) {
        return claim(scope, subject, token, DEFAULT_LEASE);
    }

    /**
     * Marks the token in use under a lease of {@code lease} (renewed every third while this process
     * lives) and returns the claim: {@link TokenClaim#complete()} deletes the token after the work
     * succeeded, {@link TokenClaim#release()} (or {@link TokenClaim#close()}) makes it usable again
     * after it failed. Of any number of concurrent claims of one token, at most one gets it; the
     * others, and {@link #consume}, are refused while it is in use. If this process dies, the lease
     * runs out and the token is usable again (still within its time-to-live).
     *
     * @param scope the scope it was issued for; not null
     * @param subject the subject presenting it; not null
     * @param token the token as received; may be null or malformed (then empty)
     * @param lease how long the mark holds without renewal; at least {@link #MIN_LEASE}
     * @return the claim; empty when the token is unknown, expired, spent, in use, issued to another
     *     subject or malformed
     * @throws io.dupguard.InvalidIdentifierException for a bad scope or subject
     * @throws IllegalArgumentException for a lease shorter than {@link #MIN_LEASE} or above 100 years
     * @throws io.dupguard.StoreUnavailableException the store could not be used (a mark that may
     *     have been written is withdrawn, best effort)
     */
    default Optional<TokenClaim> claim(String scope, String subject, String token, Duration lease) {
        Checks.between(lease, MIN_LEASE, Checks.MAX_DURATION, "lease");
        return TokenClaim.open(this, scope, subject, token, Owners.next(), lease);
    }

    /**
     * Runs {@code work} once per token: claims the token ({@link #claim(String, String, String)}),
     * runs the work, and deletes the token if it returned or puts it back if it threw, so a retry of
     * a failed submit runs again.
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param scope the scope it was issued for; not null
     * @param subject the subject presenting it; not null
     * @param token the token as received; may be null or malformed (then refused)
     * @param work the submit's work; not null
     * @return what {@code work} returned
     * @throws TokenRefusedException the token is unknown, expired, spent, in use by a concurrent
     *     submit, issued to another subject or malformed; the work did not run
     * @throws io.dupguard.LeaseLostException the lease ran out while the work ran and another
     *     submit took the token over
     * @throws io.dupguard.StoreUnavailableException the store could not be used
     * @throws E what {@code work} threw, after the token was put back
     */
    default <T, E extends Exception> T execute(String scope, String subject, String token, IdempotentWork<T, E> work)
            throws E {
        return execute(scope, subject, token, DEFAULT_LEASE, work);
    }

    /**
     * {@link #execute(String, String, String, IdempotentWork)} with a lease of {@code lease}.
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param scope the scope it was issued for; not null
     * @param subject the subject presenting it; not null
     * @param token the token as received; may be null or malformed (then refused)
     * @param lease how long the mark holds without renewal; at least {@link #MIN_LEASE}
     * @param work the submit's work; not null
     * @return what {@code work} returned
     * @throws TokenRefusedException the token cannot be spent now; the work did not run
     * @throws E what {@code work} threw, after the token was put back
     */
    default <T, E extends Exception> T execute(
            String scope, String subject, String token, Duration lease, IdempotentWork<T, E> work) throws E {
        Objects.requireNonNull(work, "work");
        TokenClaim claim = claim(scope, subject, token, lease).orElseThrow(TokenRefusedException::new);
        return claim.run(work);
    }

    /**
     * Like {@link #execute(String, String, String, Duration, IdempotentWork)}, but a submit that
     * finds the token in use by another attempt (a client's retry while its first attempt still
     * runs) waits for that attempt to end, up to {@code maxWait}: if it completed, this submit is
     * refused; if it failed (released, or its lease ran out), this submit claims the token and runs.
     * A client whose first attempt fails after its retries were sent then still gets an answer
     * that is true. A token that is spent, expired, unknown or another subject's is refused at once.
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param scope the scope it was issued for; not null
     * @param subject the subject presenting it; not null
     * @param token the token as received; may be null or malformed (then refused)
     * @param lease how long the mark holds without renewal; at least {@link #MIN_LEASE}
     * @param maxWait how long to wait for an attempt in flight; not negative, at most 100 years
     * @param work the submit's work; not null
     * @return what {@code work} returned
     * @throws TokenRefusedException the token cannot be spent, or was still in use after {@code
     *     maxWait}; the work did not run
     * @throws E what {@code work} threw, after the token was put back
     */
    default <T, E extends Exception> T execute(
            String scope, String subject, String token, Duration lease, Duration maxWait, IdempotentWork<T, E> work)
            throws E {
        Objects.requireNonNull(work, "work");
        Checks.notNegative(maxWait, "maxWait");
        TokenClaim claim = TokenClaim.awaitClaim(this, scope, subject, token, lease, maxWait)
                .orElseThrow(TokenRefusedException::new);
        return claim.run(work);
    }

    /**
     * Store step of {@link #claim}: marks the token in use by {@code owner} until {@code lease} from
     * now, if it is live, issued to {@code subject}, and not in use under a lease that still holds.
     * Atomic: of concurrent callers at most one succeeds. A store keeps the token at least until
     * the lease ends, even past its time-to-live, so the owner can still complete it; released, the
     * token expires at the end of its own time-to-live again (at once, if that has passed).
     *
     * @param scope the scope it was issued for; not null
     * @param subject the subject presenting it; not null
     * @param token the token as received; may be null or malformed (then false)
     * @param owner the claim's unique owner id, at most 64 characters; not null
     * @param lease the lease, counted from now; positive
     * @return true if {@code owner} now holds the token
     * @throws io.dupguard.InvalidIdentifierException for a bad scope or subject
     */
    boolean tryLease(String scope, String subject, String token, String owner, Duration lease);

    /**
     * Store step: whether a lease that still holds marks the token in use (an attempt in flight).
     *
     * @param scope the scope; not null
     * @param token the token as received; may be null or malformed (then false)
     * @return true while an attempt holds the token
     */
    boolean leased(String scope, String token);

    /**
     * Store step: extends {@code owner}'s lease to {@code lease} from now.
     *
     * @param scope the scope; not null
     * @param token the token; not null
     * @param owner the owner id it was claimed with; not null
     * @param lease the new lease, counted from now; positive
     * @return false if the token is no longer in use by {@code owner}
     */
    boolean renewLease(String scope, String token, String owner, Duration lease);

    /**
     * Store step: deletes the token after {@code owner}'s work succeeded. A lease that ran out but
     * that nobody took over is still completed.
     *
     * @param scope the scope; not null
     * @param token the token; not null
     * @param owner the owner id it was claimed with; not null
     * @return false if another owner took the token over (or spent it) after the lease ran out
     */
    boolean completeLease(String scope, String token, String owner);

    /**
     * Store step: makes the token usable again after {@code owner}'s work failed. Does nothing if it
     * is no longer in use by {@code owner}.
     *
     * @param scope the scope; not null
     * @param token the token; not null
     * @param owner the owner id it was claimed with; not null
     */
    void releaseLease(String scope, String token, String owner);
}

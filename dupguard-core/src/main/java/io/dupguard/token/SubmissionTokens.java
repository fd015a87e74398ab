package io.dupguard.token;

import java.time.Duration;

/**
 * One-time submission tokens against duplicate form submits (SPEC T1).
 *
 * <p>The server issues a token when it renders the form; the submit carries it; {@link #consume}
 * deletes it atomically and only the caller whose delete succeeded proceeds — the first submit.
 * A double click, a browser retry or a replayed request finds the token gone. Never
 * select-then-delete: two concurrent submits would both see the token.
 *
 * <pre>{@code
 * String token = tokens.issue("checkout", userId, Duration.ofMinutes(30));   // render the form
 * if (!tokens.consume("checkout", userId, submittedToken)) return "already submitted";
 * }</pre>
 *
 * <p>A token is bound to the subject it was issued to: consuming it as another subject, after its
 * time-to-live, a second time, or in a malformed shape all return false — never an exception that
 * would reveal whether the token exists. Implementations are thread-safe; a store outage throws
 * {@link io.dupguard.StoreUnavailableException}.
 */
public interface SubmissionTokens {

    /**
     * Issues a fresh token (≥ 128 random bits from {@link java.security.SecureRandom}, URL-safe
     * base64 without padding) for {@code subject}, valid for {@code ttl}.
     *
     * @param scope the form or operation the token is for; a valid identifier, not null
     * @param subject who the token is for (a user or session id); a valid identifier, not null
     * @param ttl how long the token can be consumed; not null, positive
     * @return the token, URL-safe; never null
     * @throws io.dupguard.InvalidIdentifierException for a bad scope or subject
     * @throws IllegalArgumentException for a non-positive ttl
     */
    String issue(String scope, String subject, Duration ttl);

    /**
     * Consumes the token: true for exactly one caller, the first; false when it is unknown,
     * expired, already consumed, issued to another subject or malformed.
     *
     * @param scope the scope it was issued for; not null
     * @param subject the subject presenting it; not null
     * @param token the token as received; may be null or malformed (then false)
     * @return true for the first consumption of a live token issued to this scope and subject;
     *     false otherwise
     * @throws io.dupguard.InvalidIdentifierException for a bad scope or subject
     */
    boolean consume(String scope, String subject, String token);
}

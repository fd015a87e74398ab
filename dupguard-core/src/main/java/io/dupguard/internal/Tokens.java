package io.dupguard.internal;

import io.dupguard.token.SubmissionTokens;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

/** Token generation and shape checks shared by every {@link SubmissionTokens} backend. */
public final class Tokens {
    /** Random bytes per token: 160 bits. */
    public static final int TOKEN_BYTES = 20;
    /** Longest subject accepted. */
    public static final int MAX_SUBJECT_LENGTH = 128;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Pattern SHAPE = Pattern.compile("[A-Za-z0-9_-]{27}");
    private static final Pattern SCOPE = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private Tokens() {}

    /** A new URL-safe token of {@value #TOKEN_BYTES} random bytes (27 characters). */
    public static String newToken() {
        byte[] bytes = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Whether {@code token} has the shape of an issued token; anything else is never looked up. */
    public static boolean wellFormed(String token) {
        return token != null && SHAPE.matcher(token).matches();
    }

    /** Validates a scope: {@code [A-Za-z0-9._-]{1,64}}. */
    public static String checkScope(String scope) {
        Checks.text(scope, 64, "scope");
        if (!SCOPE.matcher(scope).matches()) {
            throw new io.dupguard.InvalidIdentifierException("scope must match [A-Za-z0-9._-]+, was '" + scope + "'");
        }
        return scope;
    }

    /**
     * Validates the arguments of a token claim ({@code SubmissionTokens.tryLease}) and returns the
     * lease in milliseconds (at least 1).
     */
    public static long checkClaim(String scope, String subject, String owner, java.time.Duration lease) {
        checkScope(scope);
        checkSubject(subject);
        Checks.text(owner, 64, "owner");
        return Math.max(1, Checks.millis(Checks.positive(lease, "lease")));
    }

    /** Validates a subject (user id, session id): 1–128 characters, no control characters. */
    public static String checkSubject(String subject) {
        return Checks.text(subject, MAX_SUBJECT_LENGTH, "subject");
    }
}

package io.dupguard.examples.bench;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.springframework.mock.web.DelegatingServletInputStream;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * The benchmark's ceilings: the leanest correct Idempotency-Key filters an expert would write by
 * hand for POST /payments, keys per principal, the fingerprint a SHA-256 of the body. Three designs,
 * each the counterpart of one dupguard mode:
 *
 * <ul>
 *   <li>{@link #redis}: {@link RedisFront} claims, the request runs, the answer is SET (DEL on a 5xx).
 *       A duplicate gets 409 while in flight, then the replay. (dupguard's store mode on Redis.)
 *   <li>{@link #transactional}: one transaction of the application's transaction manager — {@link
 *       KeyRows} claims the row, the request runs in the transaction (the controller's
 *       {@code @Transactional} joins it), the row is updated with the answer, commit; the response
 *       leaves after the commit. A 5xx, an exception or a rollback-only transaction rolls it all
 *       back. A duplicate waits on the row lock, then replays. (dupguard's transactional mode.)
 *   <li>{@link #backstop}: the Redis claim first, then the transactional design, then Redis SET of
 *       the answer after the commit (DEL if nothing committed). (dupguard's backstop mode.)
 * </ul>
 *
 * <p>Not included: lease renewal, stored headers, problem+json, expiry and purge of rows — what
 * dupguard adds on top must cost no extra round trips.
 */
final class HandWrittenIdempotencyFilter extends OncePerRequestFilter {
    private static final TransactionDefinition REQUIRED = TransactionDefinition.withDefaults();

    private final RedisFront front; // null: no Redis
    private final KeyRows rows; // null: no row in the request's transaction
    private final PlatformTransactionManager transactions;

    private HandWrittenIdempotencyFilter(RedisFront front, KeyRows rows, PlatformTransactionManager transactions) {
        this.front = front;
        this.rows = rows;
        this.transactions = transactions;
    }

    static HandWrittenIdempotencyFilter redis(RedisFront front) {
        return new HandWrittenIdempotencyFilter(front, null, null);
    }

    static HandWrittenIdempotencyFilter transactional(KeyRows rows, PlatformTransactionManager transactions) {
        return new HandWrittenIdempotencyFilter(null, rows, transactions);
    }

    static HandWrittenIdempotencyFilter backstop(
            RedisFront front, KeyRows rows, PlatformTransactionManager transactions) {
        return new HandWrittenIdempotencyFilter(front, rows, transactions);
    }

    /** What a keyed request came to: this request's answer, or the one stored before. */
    private record Outcome(Answer answer, boolean replayed) {}

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader("Idempotency-Key");
        if (header == null || !"POST".equals(request.getMethod()) || !"/payments".equals(request.getRequestURI())) {
            chain.doFilter(request, response);
            return;
        }
        byte[] body = request.getInputStream().readAllBytes();
        String fingerprint = sha256(body);
        String key = "bench:ceiling:" + request.getUserPrincipal().getName() + ":" + header;
        if (front != null) {
            String held = front.claim(key);
            if (held != null) {
                answer(response, RedisFront.IN_PROGRESS.equals(held) ? null : Answer.decode(held), fingerprint);
                return;
            }
        }
        ContentCachingResponseWrapper captured = new ContentCachingResponseWrapper(response);
        HttpServletRequest wrapped = new HttpServletRequestWrapper(request) {
            @Override
            public ServletInputStream getInputStream() {
                return new DelegatingServletInputStream(new ByteArrayInputStream(body)); // read again
            }
        };
        Outcome outcome;
        try {
            outcome = rows == null
                    ? ran(run(chain, wrapped, captured, fingerprint))
                    : inTransaction(key, fingerprint, chain, wrapped, captured);
        } catch (IOException | ServletException | RuntimeException e) {
            if (front != null) {
                front.release(key);
            }
            throw e;
        }
        if (front != null) {
            if (outcome == null) {
                front.release(key);
            } else {
                front.complete(key, outcome.answer().encode());
            }
        }
        if (outcome != null && outcome.replayed()) {
            answer(response, outcome.answer(), fingerprint);
        } else {
            captured.copyBodyToResponse();
        }
    }

    private static Outcome ran(Answer answer) {
        return answer == null ? null : new Outcome(answer, false);
    }

    /** The claim, the request and the completion in one transaction; null if nothing committed. */
    private Outcome inTransaction(
            String key,
            String fingerprint,
            FilterChain chain,
            HttpServletRequest request,
            ContentCachingResponseWrapper captured)
            throws IOException, ServletException {
        TransactionStatus tx = transactions.getTransaction(REQUIRED);
        try {
            Answer stored = rows.claim(key, fingerprint);
            if (stored != null) {
                transactions.commit(tx);
                return new Outcome(stored, true);
            }
            Answer mine = run(chain, request, captured, fingerprint);
            if (mine == null || tx.isRollbackOnly()) {
                transactions.rollback(tx);
                return null;
            }
            rows.complete(key, mine);
            transactions.commit(tx);
            return new Outcome(mine, false);
        } finally {
            if (!tx.isCompleted()) {
                transactions.rollback(tx);
            }
        }
    }

    /** Runs the request; its answer, or null for a 5xx (not stored: the key is released). */
    private static Answer run(
            FilterChain chain, HttpServletRequest request, ContentCachingResponseWrapper captured, String fingerprint)
            throws IOException, ServletException {
        chain.doFilter(request, captured);
        if (captured.getStatus() >= 500) {
            return null;
        }
        return new Answer(
                fingerprint,
                captured.getStatus(),
                new String(captured.getContentAsByteArray(), StandardCharsets.UTF_8));
    }

    /** 409 while in flight (null), 422 for another body, else the stored response replayed. */
    private static void answer(HttpServletResponse response, Answer stored, String fingerprint) throws IOException {
        if (stored == null) {
            response.sendError(409);
        } else if (!stored.fingerprint().equals(fingerprint)) {
            response.sendError(422);
        } else {
            response.setStatus(stored.status());
            response.setContentType("application/json");
            response.setHeader("Idempotent-Replayed", "true");
            response.getOutputStream().write(stored.body().getBytes(StandardCharsets.UTF_8));
        }
    }

    private static String sha256(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

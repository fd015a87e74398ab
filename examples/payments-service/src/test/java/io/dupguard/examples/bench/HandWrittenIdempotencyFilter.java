package io.dupguard.examples.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * The benchmark's ceiling: the leanest correct Idempotency-Key filter an expert would write by hand
 * on Redis — SET NX PX to claim (one round trip), the work, SET of "fingerprint|status|body" to
 * complete (one round trip), DEL on 5xx; a duplicate reads the value (GET) and replays, answers 409
 * or 422. Keys per principal. No lease renewal, no header selection, no problem+json: what dupguard
 * adds on top must cost no extra round trips.
 */
class HandWrittenIdempotencyFilter extends OncePerRequestFilter {
    private static final String IN_PROGRESS = "-";
    private final RedisCommands<String, String> redis;

    HandWrittenIdempotencyFilter(RedisClient client) {
        StatefulRedisConnection<String, String> connection = client.connect();
        this.redis = connection.sync();
    }

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
        if (!"OK".equals(redis.set(key, IN_PROGRESS, SetArgs.Builder.nx().px(30_000)))) {
            String stored = redis.get(key);
            if (stored == null || IN_PROGRESS.equals(stored)) {
                response.sendError(409);
            } else if (!stored.startsWith(fingerprint + "|")) {
                response.sendError(422);
            } else {
                String[] parts = stored.split("\\|", 3);
                response.setStatus(Integer.parseInt(parts[1]));
                response.setContentType("application/json");
                response.setHeader("Idempotent-Replayed", "true");
                response.getOutputStream().write(parts[2].getBytes(StandardCharsets.UTF_8));
            }
            return;
        }
        ContentCachingResponseWrapper captured = new ContentCachingResponseWrapper(response);
        try {
            chain.doFilter(new ReplayBody(request, body), captured);
        } catch (IOException | ServletException | RuntimeException e) {
            redis.del(key);
            throw e;
        }
        if (captured.getStatus() >= 500) {
            redis.del(key);
        } else {
            String value = fingerprint + "|" + captured.getStatus() + "|"
                    + new String(captured.getContentAsByteArray(), StandardCharsets.UTF_8);
            redis.set(key, value, SetArgs.Builder.px(86_400_000));
        }
        captured.copyBodyToResponse();
    }

    private static String sha256(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Serves the body read for the fingerprint again. */
    private static final class ReplayBody extends jakarta.servlet.http.HttpServletRequestWrapper {
        private final byte[] body;

        ReplayBody(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public jakarta.servlet.ServletInputStream getInputStream() {
            java.io.ByteArrayInputStream in = new java.io.ByteArrayInputStream(body);
            return new jakarta.servlet.ServletInputStream() {
                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(jakarta.servlet.ReadListener listener) {}
            };
        }
    }
}

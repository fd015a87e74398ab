package io.dupguard.spring.web;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.idempotency.RequestInFlightException;
import io.dupguard.spring.IdempotentExecution;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;
import org.springframework.web.util.UrlPathHelper;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The {@code Idempotency-Key} request header (draft-ietf-httpapi-idempotency-key-header-07) for
 * Spring MVC. On a covered endpoint (method and path pattern), the first request with a key runs and
 * its response (status, body, selected headers) is stored; a retry with the same key gets that
 * response again, marked {@code Idempotent-Replayed: true}, without reaching the application.
 *
 * <table>
 *   <caption>Responses of the filter itself ({@code application/problem+json})</caption>
 *   <tr><th>status</th><th>type</th><th>when</th></tr>
 *   <tr><td>400</td><td>key-missing</td><td>required key absent</td></tr>
 *   <tr><td>400</td><td>key-invalid</td><td>empty, too long, repeated or non-ASCII key</td></tr>
 *   <tr><td>422</td><td>key-reused</td><td>same key, different method, path or body</td></tr>
 *   <tr><td>409</td><td>request-in-flight</td><td>same key while the first request still runs</td></tr>
 *   <tr><td>409</td><td>response-not-replayable</td><td>the first response exceeded the stored-body limit</td></tr>
 *   <tr><td>413</td><td>request-too-large</td><td>body larger than the fingerprint limit</td></tr>
 *   <tr><td>503</td><td>store-unavailable</td><td>the store could not be reached; nothing ran</td></tr>
 * </table>
 *
 * <p>Keys are scoped to the client ({@link IdempotencyPrincipalResolver}): the stored key is a hash
 * of the principal plus the client's key. A 5xx response, a response sent with {@code sendError},
 * a status of {@link Settings#releaseStatuses()} (the request did not execute: 400, 415, 422, ...)
 * or an exception releases the key so the client may retry; other 4xx responses are stored and
 * replayed unless {@code replayClientErrors} is off. Asynchronous responses (async servlet
 * processing, streaming bodies) cannot be captured: the key is released, the response passes
 * through, and a warning is logged — exclude such endpoints.
 *
 * <p><b>Where the record commits</b> is the {@link IdempotentExecution}'s choice. In the
 * transactional modes the whole request runs in one database transaction: the key's row, the
 * application's writes and the stored response commit together; a response that is not stored (the
 * cases above) rolls that transaction back, so the retry runs on the state before the first try. The
 * response is buffered until the commit, so a client never sees an answer whose record did not
 * commit.
 *
 * <p>Thread-safe.
 */
public class IdempotencyKeyFilter extends OncePerRequestFilter {
    /** Header set on replayed responses. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    /**
     * Request attribute holding the client's key as parsed (an sf-string unquoted), for the
     * application to derive ids of its own from it before its transaction (K8): message ids,
     * downstream idempotency keys.
     */
    public static final String CLIENT_KEY_ATTRIBUTE = "io.dupguard.spring.web.IdempotencyKeyFilter.CLIENT_KEY";

    private static final UrlPathHelper PATHS = UrlPathHelper.defaultInstance;

    /**
     * One covered set of endpoints.
     *
     * @param paths the path patterns covered; not null
     * @param methods the HTTP methods covered, upper case; not null
     * @param required true if a request without the header is refused with 400
     */
    public record Endpoint(List<PathPattern> paths, Set<String> methods, boolean required) {
        boolean matches(String method, PathContainer path) {
            if (!methods.contains(method)) {
                return false;
            }
            for (PathPattern p : paths) {
                if (p.matches(path)) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Parses path patterns and upper-cases methods.
         *
         * @param paths path patterns in Spring's {@code PathPattern} syntax; not null
         * @param methods HTTP method names, any case; not null
         * @param required true if a request without the header is refused with 400
         * @return the endpoint
         */
        public static Endpoint of(List<String> paths, List<String> methods, boolean required) {
            List<PathPattern> patterns = new ArrayList<>();
            for (String p : paths) {
                patterns.add(PathPatternParser.defaultInstance.parse(p));
            }
            Set<String> m = new TreeSet<>();
            for (String method : methods) {
                m.add(method.trim().toUpperCase(Locale.ROOT));
            }
            return new Endpoint(List.copyOf(patterns), Set.copyOf(m), required);
        }
    }

    /**
     * Settings of the filter.
     *
     * @param header the name of the request header carrying the key
     * @param scope the scope of the records; keys are further scoped by principal
     * @param endpoints the covered endpoints; the first match wins
     * @param maxKeyLength the longest key accepted, in characters (at most 222)
     * @param maxRequestBodySize the largest request body read for the fingerprint, in bytes; a
     *     larger request gets 413
     * @param maxStoredBodySize the largest response body stored for replay, in bytes
     * @param replayedHeaders the response headers stored and replayed besides Content-Type
     * @param replayClientErrors true to store and replay 4xx responses, false to release the key
     *     after one
     * @param problemTypeBase the base URI of the problem types
     * @param releaseStatuses statuses that mean the request was not executed (400, 415, 422, ...):
     *     such a response is sent but not stored, and the key is released; not null
     */
    public record Settings(
            String header,
            String scope,
            List<Endpoint> endpoints,
            int maxKeyLength,
            long maxRequestBodySize,
            long maxStoredBodySize,
            List<String> replayedHeaders,
            boolean replayClientErrors,
            String problemTypeBase,
            Set<Integer> releaseStatuses) {
        /**
         * Settings that release no 4xx status by itself (only {@code replayClientErrors} decides).
         *
         * @param header the name of the request header carrying the key
         * @param scope the scope of the records
         * @param endpoints the covered endpoints
         * @param maxKeyLength the longest key accepted
         * @param maxRequestBodySize the largest request body read for the fingerprint
         * @param maxStoredBodySize the largest response body stored for replay
         * @param replayedHeaders the response headers stored and replayed besides Content-Type
         * @param replayClientErrors true to store and replay 4xx responses
         * @param problemTypeBase the base URI of the problem types
         */
        public Settings(
                String header,
                String scope,
                List<Endpoint> endpoints,
                int maxKeyLength,
                long maxRequestBodySize,
                long maxStoredBodySize,
                List<String> replayedHeaders,
                boolean replayClientErrors,
                String problemTypeBase) {
            this(
                    header,
                    scope,
                    endpoints,
                    maxKeyLength,
                    maxRequestBodySize,
                    maxStoredBodySize,
                    replayedHeaders,
                    replayClientErrors,
                    problemTypeBase,
                    Set.of());
        }

        /**
         * Whether a response with this status is stored for replay.
         *
         * @param status the response status
         * @return false for 5xx, for a status in {@code releaseStatuses}, and for 4xx when {@code
         *     replayClientErrors} is off
         */
        public boolean stores(int status) {
            return status < 500 && !releaseStatuses.contains(status) && (status < 400 || replayClientErrors);
        }
    }

    /** Hooks for metrics. */
    public interface Listener {
        /** A listener that does nothing. */
        Listener NONE = new Listener() {};

        /** A stored response was replayed. */
        default void onReplay() {}

        /**
         * The filter answered with a problem of this type (key-missing, key-reused, ...).
         *
         * @param type the problem type's name, e.g. {@code key-missing}
         */
        default void onProblem(String type) {}
    }

    private final IdempotentExecution execution;
    private final Settings settings;
    private final IdempotencyPrincipalResolver principals;
    private final Listener listener;
    private volatile java.util.function.Supplier<io.dupguard.spring.DupguardActivity> activity = () -> null;

    /**
     * @param idempotency the executor; its codec must store {@code byte[]} (the basic codec does)
     * @param settings the filter's settings; not null
     * @param principals resolves the client identity that scopes keys; not null
     * @param listener told about replays and problems; not null
     */
    public IdempotencyKeyFilter(
            Idempotency idempotency, Settings settings, IdempotencyPrincipalResolver principals, Listener listener) {
        this(IdempotentExecution.store(idempotency), settings, principals, listener);
    }

    /**
     * A filter whose records commit as {@code execution} says: with the request's database
     * transaction ({@link io.dupguard.spring.TransactionalExecution}), or in the store alone.
     *
     * @param execution runs each keyed request; its codec must store {@code byte[]} (the basic
     *     codec does); not null
     * @param settings the filter's settings; not null
     * @param principals resolves the client identity that scopes keys; not null
     * @param listener told about replays and problems; not null
     */
    public IdempotencyKeyFilter(
            IdempotentExecution execution,
            Settings settings,
            IdempotencyPrincipalResolver principals,
            Listener listener) {
        this.execution = Objects.requireNonNull(execution, "execution");
        this.settings = settings;
        this.principals = principals;
        this.listener = listener;
    }

    /**
     * How this filter runs a keyed request, and where its records commit.
     *
     * @return the execution; never null
     */
    public IdempotentExecution execution() {
        return execution;
    }

    /**
     * Records the keys being processed for the actuator endpoint (optional).
     *
     * @param activity supplies the activity record, or null when there is none; not null itself
     */
    public void setActivity(java.util.function.Supplier<io.dupguard.spring.DupguardActivity> activity) {
        this.activity = Objects.requireNonNull(activity, "activity");
    }

    /** Sends what an asynchronous response wrote into the caching wrapper once it completes. */
    private static final class CopyWhenDone implements jakarta.servlet.AsyncListener {
        private final ContentCachingResponseWrapper captured;

        CopyWhenDone(ContentCachingResponseWrapper captured) {
            this.captured = captured;
        }

        @Override
        public void onComplete(jakarta.servlet.AsyncEvent event) throws IOException {
            captured.copyBodyToResponse();
        }

        @Override
        public void onTimeout(jakarta.servlet.AsyncEvent event) {}

        @Override
        public void onError(jakarta.servlet.AsyncEvent event) {}

        @Override
        public void onStartAsync(jakarta.servlet.AsyncEvent event) {}
    }

    /** Captures the response, and notes a {@code sendError}, whose body the container writes later. */
    private static final class CapturedResponse extends ContentCachingResponseWrapper {
        private boolean errorSent;

        CapturedResponse(HttpServletResponse response) {
            super(response);
        }

        @Override
        public void sendError(int sc) throws IOException {
            errorSent = true;
            super.sendError(sc);
        }

        @Override
        public void sendError(int sc, String msg) throws IOException {
            errorSent = true;
            super.sendError(sc, msg);
        }
    }

    /** Thrown by the work to release the key while keeping the captured response. */
    private static final class NotStored extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotStored() {
            super(null, null, false, false);
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String path = PATHS.getPathWithinApplication(request);
        Endpoint endpoint = endpoint(request.getMethod(), path);
        if (endpoint == null) {
            chain.doFilter(request, response);
            return;
        }
        List<String> values = java.util.Collections.list(request.getHeaders(settings.header()));
        if (values.isEmpty()) {
            if (endpoint.required()) {
                problem(
                        response,
                        400,
                        "key-missing",
                        "Idempotency key missing",
                        "this endpoint requires the " + settings.header() + " request header");
            } else {
                chain.doFilter(request, response);
            }
            return;
        }
        String clientKey;
        try {
            if (values.size() > 1) {
                throw new IllegalArgumentException("the " + settings.header() + " header must appear once");
            }
            clientKey = IdempotencyKeys.parseKey(values.get(0), settings.maxKeyLength(), settings.header());
        } catch (IllegalArgumentException e) {
            problem(response, 400, "key-invalid", "Invalid idempotency key", e.getMessage());
            return;
        }
        byte[] body = readBody(request, response);
        if (body == null) {
            return;
        }
        IdempotencyKey key;
        try {
            key = IdempotencyKey.of(settings.scope(), principalHash(request) + ":" + clientKey);
        } catch (InvalidIdentifierException e) {
            problem(response, 400, "key-invalid", "Invalid idempotency key", e.getMessage());
            return;
        }
        Fingerprint fingerprint = fingerprint(request, path, body);
        CapturedResponse captured = new CapturedResponse(response);
        CachedBodyRequest wrapped = new CachedBodyRequest(request, body);
        wrapped.setAttribute(CLIENT_KEY_ATTRIBUTE, clientKey);
        Outcome<byte[]> outcome;
        io.dupguard.spring.DupguardActivity a = activity.get();
        long activityId = a == null ? 0 : a.begin(key, "http " + request.getMethod() + " " + path);
        try {
            outcome = execution.execute(key, fingerprint, byte[].class, () -> run(chain, wrapped, captured));
        } catch (NotStored | IdempotentExecution.NotRecordedException released) {
            if (wrapped.isAsyncStarted()) {
                // The async dispatch writes through the caching wrapper later: pass it on then.
                wrapped.getAsyncContext().addListener(new CopyWhenDone(captured));
            } else {
                captured.copyBodyToResponse();
            }
            return;
        } catch (PayloadMismatchException e) {
            problem(response, 422, "key-reused", "Idempotency key reused", IdempotencyKeys.KEY_REUSED);
            return;
        } catch (RequestInFlightException e) {
            response.setHeader("Retry-After", "1");
            problem(response, 409, "request-in-flight", "Request in flight", IdempotencyKeys.IN_FLIGHT);
            return;
        } catch (StoreUnavailableException e) {
            logger.warn("idempotency store unavailable; the request was not processed", e);
            problem(response, 503, "store-unavailable", "Idempotency store unavailable", IdempotencyKeys.STORE_DOWN);
            return;
        } catch (IOException | ServletException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new ServletException(e);
        } finally {
            if (a != null) {
                a.end(activityId);
            }
        }
        if (outcome.isReplay()) {
            replay(response, StoredResponse.decode(outcome.value()));
        } else {
            captured.copyBodyToResponse();
        }
    }

    private byte[] run(FilterChain chain, CachedBodyRequest request, CapturedResponse response)
            throws IOException, ServletException {
        chain.doFilter(request, response);
        if (request.isAsyncStarted()) {
            logger.warn("asynchronous response on an Idempotency-Key endpoint cannot be stored; the key is released ("
                    + request.getRequestURI() + ")");
            throw new NotStored();
        }
        int status = response.getStatus();
        // sendError: the container writes the error body after this filter, so it cannot be stored.
        if (response.errorSent || !settings.stores(status)) {
            throw new NotStored();
        }
        byte[] content = response.getContentAsByteArray();
        if (content.length > settings.maxStoredBodySize()) {
            return StoredResponse.tooLarge(status, content.length).encode();
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        if (response.getContentType() != null) {
            headers.put("Content-Type", List.of(response.getContentType()));
        }
        for (String name : settings.replayedHeaders()) {
            java.util.Collection<String> v = response.getHeaders(name);
            if (v != null && !v.isEmpty()) {
                headers.put(name, List.copyOf(v));
            }
        }
        return StoredResponse.full(status, headers, content).encode();
    }

    private void replay(HttpServletResponse response, StoredResponse stored) throws IOException {
        if (!stored.replayable()) {
            problem(
                    response,
                    409,
                    "response-not-replayable",
                    "Response not replayable",
                    IdempotencyKeys.notReplayable(stored, settings.maxStoredBodySize()));
            return;
        }
        listener.onReplay();
        response.setStatus(stored.status());
        for (Map.Entry<String, List<String>> h : stored.headers().entrySet()) {
            for (String v : h.getValue()) {
                response.addHeader(h.getKey(), v);
            }
        }
        response.setHeader(REPLAYED_HEADER, "true");
        response.setContentLength(stored.body().length);
        response.getOutputStream().write(stored.body());
    }

    private Endpoint endpoint(String method, String path) {
        return IdempotencyKeys.endpoint(settings.endpoints(), method, path);
    }

    /** Reads the body up to the limit; null after answering 413. */
    private byte[] readBody(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long limit = settings.maxRequestBodySize();
        long declared = request.getContentLengthLong();
        if (declared > limit) {
            tooLarge(response, limit);
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(declared > 0 ? (int) declared : 256);
        byte[] buffer = new byte[8192];
        try (InputStream in = request.getInputStream()) {
            int n;
            while ((n = in.read(buffer)) != -1) {
                if (out.size() + n > limit) {
                    tooLarge(response, limit);
                    return null;
                }
                out.write(buffer, 0, n);
            }
        }
        return out.toByteArray();
    }

    private void tooLarge(HttpServletResponse response, long limit) throws IOException {
        problem(response, 413, "request-too-large", "Request too large", IdempotencyKeys.tooLarge(limit));
    }

    private String principalHash(HttpServletRequest request) {
        return IdempotencyKeys.principalHash(principals.resolve(request));
    }

    private static Fingerprint fingerprint(HttpServletRequest request, String path, byte[] body) {
        return IdempotencyKeys.fingerprint(request.getMethod(), path, request.getQueryString(), body);
    }

    private void problem(HttpServletResponse response, int status, String type, String title, String detail)
            throws IOException {
        listener.onProblem(type);
        response.setStatus(status);
        response.setContentType("application/problem+json");
        byte[] bytes = IdempotencyKeys.problemJson(settings.problemTypeBase(), type, title, status, detail);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}

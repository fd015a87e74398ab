package io.dupguard.spring.web;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.idempotency.RequestInFlightException;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
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
 * of the principal plus the client's key. A 5xx response or an exception releases the key so the
 * client may retry; 4xx responses are stored and replayed unless {@code replayClientErrors} is off.
 * Asynchronous responses (async servlet processing, streaming bodies) cannot be captured: the key is
 * released, the response passes through, and a warning is logged — exclude such endpoints.
 *
 * <p>Thread-safe.
 */
public class IdempotencyKeyFilter extends OncePerRequestFilter {
    /** Header set on replayed responses. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    private static final UrlPathHelper PATHS = UrlPathHelper.defaultInstance;
    private static final HexFormat HEX = HexFormat.of();

    /** One covered set of endpoints. */
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

        /** Parses path patterns and upper-cases methods. */
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

    /** Settings of the filter. */
    public record Settings(
            String header,
            String scope,
            List<Endpoint> endpoints,
            int maxKeyLength,
            long maxRequestBodySize,
            long maxStoredBodySize,
            List<String> replayedHeaders,
            boolean replayClientErrors,
            String problemTypeBase) {}

    /** Hooks for metrics. */
    public interface Listener {
        Listener NONE = new Listener() {};

        /** A stored response was replayed. */
        default void onReplay() {}

        /** The filter answered with a problem of this type (key-missing, key-reused, ...). */
        default void onProblem(String type) {}
    }

    private final Idempotency idempotency;
    private final Settings settings;
    private final IdempotencyPrincipalResolver principals;
    private final Listener listener;
    private volatile java.util.function.Supplier<io.dupguard.spring.DupguardActivity> activity = () -> null;

    /**
     * @param idempotency the executor; its codec must store {@code byte[]} (the basic codec does)
     */
    public IdempotencyKeyFilter(
            Idempotency idempotency, Settings settings, IdempotencyPrincipalResolver principals, Listener listener) {
        this.idempotency = idempotency;
        this.settings = settings;
        this.principals = principals;
        this.listener = listener;
    }

    /** Records the keys being processed for the actuator endpoint (optional). */
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
            clientKey = parseKey(values.get(0), settings.maxKeyLength(), settings.header());
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
        ContentCachingResponseWrapper captured = new ContentCachingResponseWrapper(response);
        CachedBodyRequest wrapped = new CachedBodyRequest(request, body);
        Outcome<byte[]> outcome;
        io.dupguard.spring.DupguardActivity a = activity.get();
        long activityId = a == null ? 0 : a.begin(key, "http " + request.getMethod() + " " + path);
        try {
            outcome = idempotency.execute(key, fingerprint, byte[].class, () -> run(chain, wrapped, captured));
        } catch (NotStored released) {
            if (wrapped.isAsyncStarted()) {
                // The async dispatch writes through the caching wrapper later: pass it on then.
                wrapped.getAsyncContext().addListener(new CopyWhenDone(captured));
            } else {
                captured.copyBodyToResponse();
            }
            return;
        } catch (PayloadMismatchException e) {
            problem(
                    response,
                    422,
                    "key-reused",
                    "Idempotency key reused",
                    "this key was already used with a different request (method, path or body); use a new key");
            return;
        } catch (RequestInFlightException e) {
            response.setHeader("Retry-After", "1");
            problem(
                    response,
                    409,
                    "request-in-flight",
                    "Request in flight",
                    "a request with this key is still being processed; retry later");
            return;
        } catch (StoreUnavailableException e) {
            logger.warn("idempotency store unavailable; the request was not processed", e);
            problem(
                    response,
                    503,
                    "store-unavailable",
                    "Idempotency store unavailable",
                    "the request was not processed; retry later");
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

    private byte[] run(FilterChain chain, CachedBodyRequest request, ContentCachingResponseWrapper response)
            throws IOException, ServletException {
        chain.doFilter(request, response);
        if (request.isAsyncStarted()) {
            logger.warn("asynchronous response on an Idempotency-Key endpoint cannot be stored; the key is released ("
                    + request.getRequestURI() + ")");
            throw new NotStored();
        }
        int status = response.getStatus();
        if (status >= 500 || (status >= 400 && !settings.replayClientErrors())) {
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
                    "the request with this key was processed (status " + stored.status() + ") but its response ("
                            + stored.tooLargeSize() + " bytes) exceeded dupguard.http.max-stored-body-size ("
                            + settings.maxStoredBodySize() + " bytes), so it cannot be sent again; do not retry"
                            + " this request with a new key");
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
        PathContainer container = null;
        for (Endpoint e : settings.endpoints()) {
            if (!e.methods().contains(method)) {
                continue;
            }
            if (container == null) {
                container = PathContainer.parsePath(path);
            }
            if (e.matches(method, container)) {
                return e;
            }
        }
        return null;
    }

    /**
     * The key from the header value: an sf-string ({@code "..."}, RFC 8941, as the draft defines
     * the field) or, leniently, the bare token clients often send. Printable ASCII only.
     */
    static String parseKey(String raw, int maxLength, String header) {
        String v = raw.trim();
        String key;
        if (v.length() >= 2 && v.charAt(0) == '"' && v.charAt(v.length() - 1) == '"') {
            StringBuilder out = new StringBuilder(v.length());
            for (int i = 1; i < v.length() - 1; i++) {
                char c = v.charAt(i);
                if (c == '\\') {
                    if (i + 1 >= v.length() - 1 || (v.charAt(i + 1) != '"' && v.charAt(i + 1) != '\\')) {
                        throw new IllegalArgumentException(header + " has a bad escape at position " + i);
                    }
                    c = v.charAt(++i);
                } else if (c == '"') {
                    throw new IllegalArgumentException(header + " has an unescaped quote at position " + i);
                }
                if (c < 0x20 || c > 0x7e) {
                    throw new IllegalArgumentException(header + " must be printable ASCII (RFC 8941 sf-string)");
                }
                out.append(c);
            }
            key = out.toString();
        } else {
            for (int i = 0; i < v.length(); i++) {
                char c = v.charAt(i);
                if (c <= 0x20 || c > 0x7e) {
                    throw new IllegalArgumentException(header
                            + " must be printable ASCII without spaces, or a quoted string (RFC 8941 sf-string)");
                }
            }
            key = v;
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException(header + " must not be empty");
        }
        if (key.length() > maxLength) {
            throw new IllegalArgumentException(
                    header + " is " + key.length() + " characters long; at most " + maxLength + " are accepted");
        }
        return key;
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
        problem(
                response,
                413,
                "request-too-large",
                "Request too large",
                "requests with an idempotency key may carry at most " + limit
                        + " bytes (dupguard.http.max-request-body-size)");
    }

    private String principalHash(HttpServletRequest request) {
        String principal = principals.resolve(request);
        byte[] digest = sha256().digest(
                        (principal == null ? "\u0000anonymous" : "p:" + principal).getBytes(StandardCharsets.UTF_8));
        return HEX.formatHex(digest, 0, 16);
    }

    private static Fingerprint fingerprint(HttpServletRequest request, String path, byte[] body) {
        MessageDigest d = sha256();
        String query = request.getQueryString();
        String head = request.getMethod() + "\n" + path.length() + ":" + path + "\n"
                + (query == null ? "-" : query.length() + ":" + query) + "\n";
        d.update(head.getBytes(StandardCharsets.UTF_8));
        d.update(body);
        return Fingerprint.ofHex(HEX.formatHex(d.digest()));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void problem(HttpServletResponse response, int status, String type, String title, String detail)
            throws IOException {
        listener.onProblem(type);
        response.setStatus(status);
        response.setContentType("application/problem+json");
        String json = "{\"type\":" + json(settings.problemTypeBase() + type) + ",\"title\":" + json(title)
                + ",\"status\":" + status + ",\"detail\":" + json(detail) + "}";
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }

    private static String json(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}

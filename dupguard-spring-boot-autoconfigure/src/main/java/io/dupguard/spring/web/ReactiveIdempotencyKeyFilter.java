package io.dupguard.spring.web;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import java.io.ByteArrayOutputStream;
import java.security.Principal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The {@code Idempotency-Key} header for Spring WebFlux: the same endpoints, keys, fingerprints,
 * problem types and stored responses as {@link IdempotencyKeyFilter} (the servlet filter), as a
 * {@link WebFilter}. The first request with a key runs and its response (status, body, selected
 * headers) is stored; a retry gets it again with {@code Idempotent-Replayed: true}. 400 key-missing /
 * key-invalid, 413 request-too-large, 422 key-reused, 409 request-in-flight (no waiting: the
 * reactive filter never blocks a request on another), 409 response-not-replayable, 503
 * store-unavailable. A 5xx response or an error signal releases the key.
 *
 * <p>Keys are scoped to the exchange's principal ({@link ServerWebExchange#getPrincipal()}, which
 * Spring Security's reactive filter chain sets), otherwise "anonymous". Store calls are blocking
 * (JDBC, Lettuce sync) and run on {@link Schedulers#boundedElastic()}, never on an event-loop
 * thread; the claim's lease is renewed every third of the lease while the response is produced.
 * Streaming responses ({@code Flux} bodies written with {@code writeAndFlushWith}, server-sent
 * events) are collected whole before they are sent — exclude such endpoints. Thread-safe.
 */
public class ReactiveIdempotencyKeyFilter implements WebFilter, Ordered {
    private static final Logger LOG = LoggerFactory.getLogger(ReactiveIdempotencyKeyFilter.class);

    private final IdempotencyStore store;
    private final IdempotencyConfig config;
    private final IdempotencyKeyFilter.Settings settings;
    private final IdempotencyKeyFilter.Listener listener;
    private final int order;

    /**
     * A filter claiming keys in {@code store}.
     *
     * @param store the idempotency store; not null (its calls run on the bounded-elastic scheduler)
     * @param config the lease, retention and in-flight policy; not null
     * @param settings the filter's settings; not null
     * @param listener told about replays and problems; not null
     * @param order the filter's order among the application's web filters
     * @throws NullPointerException if an argument other than {@code order} is null
     */
    public ReactiveIdempotencyKeyFilter(
            IdempotencyStore store,
            IdempotencyConfig config,
            IdempotencyKeyFilter.Settings settings,
            IdempotencyKeyFilter.Listener listener,
            int order) {
        this.store = Objects.requireNonNull(store, "store");
        this.config = Objects.requireNonNull(config, "config");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.order = order;
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        String method = request.getMethod().name();
        String path = request.getPath().pathWithinApplication().value();
        IdempotencyKeyFilter.Endpoint endpoint = IdempotencyKeys.endpoint(settings.endpoints(), method, path);
        if (endpoint == null) {
            return chain.filter(exchange);
        }
        List<String> values = request.getHeaders().getOrEmpty(settings.header());
        if (values.isEmpty()) {
            return endpoint.required()
                    ? problem(
                            exchange,
                            400,
                            "key-missing",
                            "Idempotency key missing",
                            "this endpoint requires the " + settings.header() + " request header")
                    : chain.filter(exchange);
        }
        String clientKey;
        try {
            if (values.size() > 1) {
                throw new IllegalArgumentException("the " + settings.header() + " header must appear once");
            }
            clientKey = IdempotencyKeys.parseKey(values.get(0), settings.maxKeyLength(), settings.header());
        } catch (IllegalArgumentException e) {
            return problem(exchange, 400, "key-invalid", "Invalid idempotency key", e.getMessage());
        }
        long limit = settings.maxRequestBodySize();
        Mono<byte[]> body = DataBufferUtils.join(request.getBody(), (int) Math.min(limit, Integer.MAX_VALUE))
                .map(buffer -> {
                    byte[] bytes = new byte[buffer.readableByteCount()];
                    buffer.read(bytes);
                    DataBufferUtils.release(buffer);
                    return bytes;
                })
                .defaultIfEmpty(new byte[0]);
        Mono<Optional<String>> principal = exchange.getPrincipal()
                .map(Principal::getName)
                .map(Optional::of)
                .defaultIfEmpty(Optional.empty());
        return Mono.zip(body, principal)
                .flatMap(t -> {
                    IdempotencyKey key;
                    try {
                        key = IdempotencyKey.of(
                                settings.scope(),
                                IdempotencyKeys.principalHash(t.getT2().orElse(null)) + ":" + clientKey);
                    } catch (InvalidIdentifierException e) {
                        return problem(exchange, 400, "key-invalid", "Invalid idempotency key", e.getMessage());
                    }
                    Fingerprint fp = IdempotencyKeys.fingerprint(
                            method, path, request.getURI().getRawQuery(), t.getT1());
                    return claimed(exchange, chain, key, fp, t.getT1());
                })
                .onErrorResume(
                        DataBufferLimitException.class,
                        e -> problem(
                                exchange,
                                413,
                                "request-too-large",
                                "Request too large",
                                "requests with an idempotency key may carry at most " + limit
                                        + " bytes (dupguard.http.max-request-body-size)"));
    }

    private Mono<Void> claimed(
            ServerWebExchange exchange, WebFilterChain chain, IdempotencyKey key, Fingerprint fp, byte[] body) {
        String owner = UUID.randomUUID().toString();
        Duration lease = config.inFlightLease();
        return Mono.fromCallable(() -> store.claim(key, fp, owner, lease))
                .subscribeOn(Schedulers.boundedElastic())
                .flatMap(claim -> claim instanceof Claim.Existing existing
                        ? existing(exchange, existing.record(), fp)
                        : first(exchange, chain, key, fp, owner, body))
                .onErrorResume(StoreUnavailableException.class, e -> {
                    LOG.warn("idempotency store unavailable; the request was not processed", e);
                    return problem(
                            exchange,
                            503,
                            "store-unavailable",
                            "Idempotency store unavailable",
                            IdempotencyKeys.STORE_DOWN);
                });
    }

    private Mono<Void> existing(ServerWebExchange exchange, IdempotencyRecord record, Fingerprint fp) {
        if (record.fingerprint().conflictsWith(fp)) {
            return problem(exchange, 422, "key-reused", "Idempotency key reused", IdempotencyKeys.KEY_REUSED);
        }
        if (record.status() == RecordStatus.IN_PROGRESS) {
            exchange.getResponse().getHeaders().set("Retry-After", "1");
            return problem(exchange, 409, "request-in-flight", "Request in flight", IdempotencyKeys.IN_FLIGHT);
        }
        StoredResponse stored = StoredResponse.decode(record.payload());
        if (!stored.replayable()) {
            return problem(
                    exchange,
                    409,
                    "response-not-replayable",
                    "Response not replayable",
                    IdempotencyKeys.notReplayable(stored, settings.maxStoredBodySize()));
        }
        listener.onReplay();
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatusCode.valueOf(stored.status()));
        stored.headers().forEach((name, v) -> response.getHeaders().addAll(name, v));
        response.getHeaders().set(IdempotencyKeyFilter.REPLAYED_HEADER, "true");
        response.getHeaders().setContentLength(stored.body().length);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(stored.body())));
    }

    private Mono<Void> first(
            ServerWebExchange exchange,
            WebFilterChain chain,
            IdempotencyKey key,
            Fingerprint fp,
            String owner,
            byte[] body) {
        Capture capture = new Capture(exchange.getResponse());
        ServerHttpRequest replayBody = new ServerHttpRequestDecorator(exchange.getRequest()) {
            @Override
            public Flux<DataBuffer> getBody() {
                return Flux.defer(
                        () -> Flux.just(exchange.getResponse().bufferFactory().wrap(body)));
            }
        };
        Duration lease = config.inFlightLease();
        Duration every = lease.dividedBy(3).isZero() ? lease : lease.dividedBy(3);
        Disposable renewal = config.renewLease()
                ? Flux.interval(every, Schedulers.boundedElastic())
                        .subscribe(
                                n -> store.renew(key, owner, lease),
                                e -> LOG.warn("renewing the claim of {} failed", key, e))
                : () -> {};
        AtomicBoolean settled = new AtomicBoolean();
        return chain.filter(
                        exchange.mutate().request(replayBody).response(capture).build())
                .then(Mono.defer(() -> Mono.fromRunnable(() -> {
                            settled.set(true);
                            renewal.dispose();
                            settle(key, fp, owner, capture);
                        })
                        .subscribeOn(Schedulers.boundedElastic())))
                .then(Mono.defer(capture::send))
                .onErrorResume(e -> {
                    renewal.dispose();
                    if (settled.get()) {
                        return Mono.error(e);
                    }
                    return Mono.fromRunnable(() -> store.release(key, owner))
                            .subscribeOn(Schedulers.boundedElastic())
                            .onErrorResume(r -> {
                                e.addSuppressed(r);
                                return Mono.empty();
                            })
                            .then(Mono.error(e));
                })
                .doOnCancel(renewal::dispose);
    }

    /** Stores the captured response, or releases the key for a 5xx (or a 4xx, if configured). */
    private void settle(IdempotencyKey key, Fingerprint fp, String owner, Capture capture) {
        int status = capture.status();
        if (!settings.stores(status)) {
            try {
                store.release(key, owner);
            } catch (StoreUnavailableException e) {
                LOG.warn("releasing {} failed; a retry is refused as in flight until its lease ends", key, e);
            }
            return;
        }
        byte[] content = capture.body();
        StoredResponse stored;
        if (content.length > settings.maxStoredBodySize()) {
            stored = StoredResponse.tooLarge(status, content.length);
        } else {
            Map<String, List<String>> headers = new LinkedHashMap<>();
            HttpHeaders h = capture.getHeaders();
            if (h.getContentType() != null) {
                headers.put("Content-Type", List.of(h.getContentType().toString()));
            }
            for (String name : settings.replayedHeaders()) {
                List<String> v = h.get(name);
                if (v != null && !v.isEmpty()) {
                    headers.put(name, List.copyOf(v));
                }
            }
            stored = StoredResponse.full(status, headers, content);
        }
        try {
            store.complete(key, fp, owner, RecordStatus.COMPLETED, stored.encode(), config.retention());
        } catch (LeaseLostException e) {
            // another request took the key over after this one's lease ended; this response still goes out
            LOG.warn("the claim of {} was taken over before its response was stored", key);
        } catch (StoreUnavailableException e) {
            // The work ran: its response goes out; the claim stays in progress until its lease ends.
            LOG.warn("the response of {} ran but could not be stored; a retry after the lease may run again", key, e);
        }
    }

    private Mono<Void> problem(ServerWebExchange exchange, int status, String type, String title, String detail) {
        listener.onProblem(type);
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatusCode.valueOf(status));
        response.getHeaders().set(HttpHeaders.CONTENT_TYPE, "application/problem+json");
        byte[] bytes = IdempotencyKeys.problemJson(settings.problemTypeBase(), type, title, status, detail);
        response.getHeaders().setContentLength(bytes.length);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(bytes)));
    }

    /** Holds the application's response body until it is stored, then sends it. */
    private static final class Capture extends ServerHttpResponseDecorator {
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private volatile boolean written;

        Capture(ServerHttpResponse delegate) {
            super(delegate);
        }

        @Override
        public Mono<Void> writeWith(Publisher<? extends DataBuffer> data) {
            return Flux.from(data)
                    .doOnNext(buffer -> {
                        byte[] bytes = new byte[buffer.readableByteCount()];
                        buffer.read(bytes);
                        DataBufferUtils.release(buffer);
                        synchronized (body) {
                            body.writeBytes(bytes);
                        }
                    })
                    .then(Mono.fromRunnable(() -> written = true));
        }

        @Override
        public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> data) {
            return writeWith(Flux.from(data).concatMap(Flux::from));
        }

        @Override
        public Mono<Void> setComplete() {
            return Mono.fromRunnable(() -> written = true);
        }

        int status() {
            HttpStatusCode code = getStatusCode();
            return code == null ? 200 : code.value();
        }

        byte[] body() {
            synchronized (body) {
                return body.toByteArray();
            }
        }

        /** Sends the held body (or just the headers) through the real response. */
        Mono<Void> send() {
            byte[] bytes = body();
            ServerHttpResponse real = getDelegate();
            if (!written && bytes.length == 0) {
                return real.setComplete();
            }
            real.getHeaders().setContentLength(bytes.length);
            return real.writeWith(Mono.just(real.bufferFactory().wrap(bytes)));
        }
    }
}

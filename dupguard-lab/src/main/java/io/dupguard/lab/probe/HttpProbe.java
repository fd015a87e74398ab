package io.dupguard.lab.probe;

import io.dupguard.lab.env.UnreachableException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * The HTTP scenarios against one endpoint of a running service, each on fresh keys, with the
 * effects counted per key by the user's queries. Built by {@link Probe#http(String)}; every setter
 * returns this probe; {@link #run()} checks the input, then sends the traffic and returns the
 * verdicts.
 */
public final class HttpProbe {
    /** The scenarios, in the order they run. */
    public static final List<String> SCENARIOS = List.of(
            "sequential-retry", "concurrent-duplicates", "cut-connection", "changed-body", "no-key", "replay", "kill");

    private static final int MAX_CONCURRENCY = 1024;
    private static final List<String> DEFAULT_REPLAY_HEADERS =
            List.of("content-type", "content-encoding", "location", "etag", "cache-control", "content-language");

    private final URI url;
    private String method = "POST";
    private BodyTemplate body = new BodyTemplate("");
    private BodyTemplate changedBody;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private String keyHeader = "Idempotency-Key";
    private final List<String> effectsSql = new ArrayList<>();
    private String jdbcUrl;
    private DataSource dataSource;
    private int concurrency = 32;
    private int keys = 2;
    private List<Duration> cutTimeouts =
            List.of(Duration.ofMillis(10), Duration.ofMillis(100), Duration.ofMillis(1000));
    private List<Duration> killAfter = List.of(Duration.ofMillis(10), Duration.ofMillis(100));
    private Duration finalAnswerTimeout = Duration.ofSeconds(30);
    private Duration settle = Duration.ofSeconds(1);
    private Duration lostAfter = Duration.ofSeconds(15);
    private Duration startTimeout = Duration.ofSeconds(180);
    private List<String> replayHeaders = DEFAULT_REPLAY_HEADERS;
    private boolean allowRemote;
    private String launch;
    private String restart;
    private String health;
    private Consumer<String> progress = line -> {};

    private final AtomicLong sequence = new AtomicLong();
    private final String runId = UUID.randomUUID().toString().substring(0, 8);

    HttpProbe(String url) {
        try {
            this.url = URI.create(Objects.requireNonNull(url, "url"));
        } catch (IllegalArgumentException e) {
            throw new ProbeInputException("--url: not a URL: " + url + " (" + e.getMessage() + ")");
        }
    }

    /** The request method (default POST). */
    public HttpProbe method(String method) {
        this.method = method.strip().toUpperCase(Locale.ROOT);
        return this;
    }

    /** The body template ({@code {{key}}}, {@code {{uuid}}}, {@code {{n}}}; default empty). */
    public HttpProbe body(String template) {
        this.body = new BodyTemplate(template);
        return this;
    }

    /**
     * The body the changed-body scenario sends with an already used key (a template too); by
     * default the body with one more JSON member, or a trailing line.
     */
    public HttpProbe changedBody(String template) {
        this.changedBody = new BodyTemplate(template);
        return this;
    }

    /** A header sent with every request (Authorization, Content-Type, …). */
    public HttpProbe header(String name, String value) {
        headers.put(name.strip(), value.strip());
        return this;
    }

    /**
     * The header that carries each request's key (default {@code Idempotency-Key}); {@code null}
     * or empty when the service reads its key from the body alone ({@code {{key}}}), which skips
     * the no-key scenario.
     */
    public HttpProbe keyHeader(String name) {
        this.keyHeader = name == null || name.isBlank() ? null : name.strip();
        return this;
    }

    /** Counts effects with {@code sql} (containing {@code :key}) over {@code jdbcUrl}; may be called again for more queries. */
    public HttpProbe effects(String jdbcUrl, String sql) {
        this.jdbcUrl = jdbcUrl;
        this.effectsSql.add(sql);
        return this;
    }

    /** Counts effects with {@code sql} (containing {@code :key}) on {@code dataSource}; may be called again. */
    public HttpProbe effects(DataSource dataSource, String sql) {
        this.dataSource = dataSource;
        this.effectsSql.add(sql);
        return this;
    }

    /** Concurrent duplicates per key in the concurrent scenario, each from its own client (default 32). */
    public HttpProbe concurrency(int n) {
        this.concurrency = n;
        return this;
    }

    /** Logical requests (keys) per scenario where the scenario repeats itself (default 2). */
    public HttpProbe keys(int n) {
        this.keys = n;
        return this;
    }

    /** The cut-connection scenario's client timeouts (default 10 ms, 100 ms, 1 s): one key each. */
    public HttpProbe cutTimeouts(Duration... timeouts) {
        this.cutTimeouts = List.of(timeouts);
        return this;
    }

    /** How long after sending a request the kill scenario kills the service (default 10 ms, 100 ms): one key each. */
    public HttpProbe killAfter(Duration... delays) {
        this.killAfter = List.of(delays);
        return this;
    }

    /** How long a client keeps retrying a key for a final answer (default 30 s). */
    public HttpProbe finalAnswerTimeout(Duration timeout) {
        this.finalAnswerTimeout = timeout;
        return this;
    }

    /**
     * How long to wait after the traffic before counting (default 1 s): an attempt whose client
     * gave up may still be running; then keys answered with success and still without effects are
     * counted again until {@code lostAfter} (default 15 s) for effects that land asynchronously.
     */
    public HttpProbe settle(Duration settle, Duration lostAfter) {
        this.settle = settle;
        this.lostAfter = lostAfter;
        return this;
    }

    /** The response headers a replay must repeat byte for byte (lower case; default content-type, location, etag, …). */
    public HttpProbe replayHeaders(List<String> names) {
        this.replayHeaders =
                names.stream().map(n -> n.strip().toLowerCase(Locale.ROOT)).toList();
        return this;
    }

    /** Allows a target that is not a loopback address. */
    public HttpProbe allowRemote(boolean allow) {
        this.allowRemote = allow;
        return this;
    }

    /**
     * Launches the service with {@code command} (through {@code /bin/sh -c}), waits for {@code
     * healthPath} (or, when null, for the port) and enables the kill scenario: SIGKILL of the
     * process tree mid-request, a new launch, retries until a final answer.
     */
    public HttpProbe launch(String command, String healthPath) {
        this.launch = command;
        this.health = healthPath;
        return this;
    }

    /** Enables the kill scenario with a command that kills the service hard and starts it again. */
    public HttpProbe restart(String command, String healthPath) {
        this.restart = command;
        this.health = healthPath;
        return this;
    }

    /** How long a (re)started service has to become ready (default 180 s). */
    public HttpProbe startTimeout(Duration timeout) {
        this.startTimeout = timeout;
        return this;
    }

    /** Receives one line per scenario as it finishes. */
    public HttpProbe progress(Consumer<String> sink) {
        this.progress = sink;
        return this;
    }

    /**
     * Checks the input (before any request is sent), runs every scenario and counts the effects.
     *
     * @throws ProbeInputException for input the probe cannot use
     * @throws UnreachableException when the service or the effects database cannot be reached
     */
    public ProbeReport run() {
        long start = System.nanoTime();
        List<EffectsQuery> queries = check();
        InetSocketAddress address = address();
        URI healthUri = health == null || health.isBlank() ? null : url.resolve(health);
        List<Scenario> done = new ArrayList<>();
        List<ScenarioVerdict> verdicts;
        ServiceProcess service = null;
        try {
            if (launch != null || restart != null) {
                service = new ServiceProcess(launch, restart, healthUri, address, startTimeout);
                if (launch != null) {
                    service.start(); // before the effects check: a service may create its tables at start-up
                }
            }
            checkEffects(queries);
            reachable(address);
            done.add(timed(sequentialRetry()));
            done.add(timed(concurrentDuplicates()));
            done.add(timed(cutConnection()));
            done.add(timed(changedBodyScenario()));
            if (keyHeader != null) {
                done.add(timed(noKey()));
            }
            done.add(timed(replay()));
            if (service != null) {
                done.add(timed(kill(service)));
            }
            // Counted while a launched service still runs: its asynchronous effects (an outbox) land.
            verdicts = count(queries, done);
        } catch (IOException e) {
            throw new UnreachableException("cannot prepare the service's log file: " + e.getMessage(), e);
        } finally {
            if (service != null) {
                service.close();
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new ProbeReport(
                target(), effectsSql, verdicts, seconds, verdicts.stream().allMatch(ScenarioVerdict::ok));
    }

    /** {@code POST http://127.0.0.1:8080/payments} */
    public String target() {
        return method + " " + url;
    }

    // ---- input -------------------------------------------------------------------------------

    private List<EffectsQuery> check() {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null) {
            throw new ProbeInputException("--url: an http:// or https:// URL with a host is required, got: " + url);
        }
        if (method.isEmpty() || !method.chars().allMatch(Character::isLetter)) {
            throw new ProbeInputException("--method: an HTTP method such as POST, got: '" + method + "'");
        }
        if (concurrency < 2 || concurrency > MAX_CONCURRENCY) {
            throw new ProbeInputException(
                    "--concurrency: between 2 and " + MAX_CONCURRENCY + " concurrent duplicates, got " + concurrency);
        }
        if (keys < 1 || keys > 100) {
            throw new ProbeInputException("--keys: between 1 and 100 keys per scenario, got " + keys);
        }
        for (Duration d : cutTimeouts) {
            if (d.isNegative() || d.isZero() || d.compareTo(Duration.ofSeconds(60)) > 0) {
                throw new ProbeInputException(
                        "--cut-after: each timeout between 1ms and 60s, got " + d.toMillis() + "ms");
            }
        }
        if (launch != null && restart != null) {
            throw new ProbeInputException("--launch and --restart: give one (--launch starts and kills the service"
                    + " itself; --restart names a command that kills and restarts it)");
        }
        if (effectsSql.isEmpty()) {
            throw new ProbeInputException("--effects-sql: a query counting one key's effects is required, e.g."
                    + " \"select count(*) from payments where request_id = :key\"");
        }
        if (dataSource == null && (jdbcUrl == null || jdbcUrl.isBlank())) {
            throw new ProbeInputException("--effects-jdbc-url: the database the effects land in is required, e.g."
                    + " jdbc:postgresql://127.0.0.1:5432/app?user=app");
        }
        List<EffectsQuery> queries = effectsSql.stream().map(EffectsQuery::of).toList();
        if (!allowRemote) {
            loopbackOnly();
        }
        String contentType = contentType();
        body.check(contentType, "--body");
        changed().check(contentType, "--changed-body");
        return queries;
    }

    /** Runs each query once on a key no request uses: the database is reachable and the queries count. */
    private void checkEffects(List<EffectsQuery> queries) {
        try (Connection c = connection()) {
            String probeKey = "dupguard-probe-check-" + runId;
            for (EffectsQuery q : queries) {
                q.count(c, probeKey);
            }
        } catch (SQLException e) {
            String where = dataSource != null ? "the effects DataSource" : "--effects-jdbc-url " + jdbcUrl;
            throw new UnreachableException("--effects-sql / " + where + ": cannot count effects: " + e.getMessage(), e);
        }
    }

    private void loopbackOnly() {
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(url.getHost());
        } catch (IOException e) {
            throw new UnreachableException("--url: cannot resolve host " + url.getHost() + ": " + e.getMessage(), e);
        }
        if (!Arrays.stream(all).allMatch(InetAddress::isLoopbackAddress)) {
            throw new ProbeInputException("--url: " + url.getHost() + " is not a loopback address; the probe sends"
                    + " duplicates and kills on purpose, so a remote target needs --allow-remote"
                    + " (point it at a test deployment, never production)");
        }
    }

    private InetSocketAddress address() {
        int port = url.getPort() != -1 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
        return new InetSocketAddress(url.getHost(), port);
    }

    private void reachable(InetSocketAddress address) {
        try (Socket s = new Socket()) {
            s.connect(address, 3000);
        } catch (IOException e) {
            throw new UnreachableException(
                    "--url " + url + ": cannot connect to " + address.getHostString() + ":" + address.getPort() + ": "
                            + e.getMessage(),
                    e);
        }
    }

    private String contentType() {
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase("Content-Type")) {
                return h.getValue();
            }
        }
        return body.text().isEmpty() ? null : "application/json";
    }

    private BodyTemplate changed() {
        return changedBody != null ? changedBody : body.changed();
    }

    private Connection connection() throws SQLException {
        return dataSource != null ? dataSource.getConnection() : DriverManager.getConnection(jdbcUrl);
    }

    // ---- traffic -----------------------------------------------------------------------------

    private HttpClient client() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    private String freshKey() {
        return "probe-" + runId + "-" + sequence.incrementAndGet();
    }

    private Answer send(Scenario s, HttpClient client, String key, boolean withKey, String bodyText, Duration timeout) {
        HttpRequest.Builder r = HttpRequest.newBuilder(url)
                .timeout(timeout)
                .method(
                        method,
                        bodyText.isEmpty()
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(bodyText, StandardCharsets.UTF_8));
        String contentType = contentType();
        boolean typed = false;
        for (Map.Entry<String, String> h : headers.entrySet()) {
            r.header(h.getKey(), h.getValue());
            typed |= h.getKey().equalsIgnoreCase("Content-Type");
        }
        if (!typed && contentType != null) {
            r.header("Content-Type", contentType);
        }
        if (withKey && keyHeader != null) {
            r.header(keyHeader, key);
        }
        long t0 = System.nanoTime();
        Answer a;
        try {
            HttpResponse<String> resp =
                    client.send(r.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            Map<String, String> hs = new TreeMap<>();
            resp.headers().map().forEach((k, v) -> hs.put(k.toLowerCase(Locale.ROOT), String.join(", ", v)));
            a = new Answer(
                    Integer.toString(resp.statusCode()),
                    resp.statusCode(),
                    resp.body(),
                    hs,
                    (System.nanoTime() - t0) / 1000);
        } catch (HttpTimeoutException e) {
            a = new Answer("cut after " + timeout.toMillis() + "ms", 0, "", Map.of(), (System.nanoTime() - t0) / 1000);
        } catch (IOException e) {
            a = new Answer("error: " + oneLine(e), 0, "", Map.of(), (System.nanoTime() - t0) / 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        s.record(key, a);
        return a;
    }

    /** Sends until a final answer (not a retryable one) or the final-answer timeout; returns the last answer. */
    private Answer untilFinal(Scenario s, HttpClient client, String key, boolean withKey, String bodyText) {
        long deadline = System.nanoTime() + finalAnswerTimeout.toNanos();
        long backoff = 50;
        while (true) {
            Answer a = send(s, client, key, withKey, bodyText, finalAnswerTimeout);
            if (!a.retryable() || System.nanoTime() > deadline) {
                return a;
            }
            try {
                Thread.sleep(backoff); // a client's retry backoff, part of the traffic
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            backoff = Math.min(1000, backoff * 2);
        }
    }

    private Scenario timed(Scenario s) {
        progress.accept(String.format(
                Locale.ROOT,
                "probe: %s done, %d keys, %d requests, %.1f s",
                s.name,
                s.keys.size(),
                s.histogram.getTotalCount(),
                (System.nanoTime() - s.started) / 1e9));
        return s;
    }

    private Scenario sequentialRetry() {
        Scenario s = new Scenario(
                "sequential-retry",
                "each key sent, answered, then sent twice more with the same key and body (a client retrying after a"
                        + " lost answer)");
        HttpClient c = client();
        for (int i = 0; i < keys; i++) {
            String key = freshKey();
            String b = s.body(key, body);
            for (int attempt = 0; attempt < 3; attempt++) {
                untilFinal(s, c, key, true, b);
            }
        }
        return s;
    }

    private Scenario concurrentDuplicates() {
        Scenario s = new Scenario(
                "concurrent-duplicates",
                concurrency + " clients (each its own HttpClient and connection) send the same key and body at the same"
                        + " moment; each retries a 409/5xx/no answer until a final answer");
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        try {
            for (int i = 0; i < keys; i++) {
                String key = freshKey();
                String b = s.body(key, body);
                List<HttpClient> clients = new ArrayList<>();
                for (int k = 0; k < concurrency; k++) {
                    clients.add(client());
                }
                CountDownLatch ready = new CountDownLatch(concurrency);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Answer>> answers = new ArrayList<>();
                for (HttpClient c : clients) {
                    answers.add(pool.submit(() -> {
                        ready.countDown();
                        go.await();
                        return untilFinal(s, c, key, true, b);
                    }));
                }
                ready.await();
                go.countDown();
                for (Future<Answer> f : answers) {
                    f.get();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(
                    "a client of the concurrent scenario failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
        return s;
    }

    private Scenario cutConnection() {
        Scenario s = new Scenario(
                "cut-connection",
                "one key per client timeout ("
                        + String.join(
                                ", ",
                                cutTimeouts.stream()
                                        .map(d -> d.toMillis() + " ms")
                                        .toList())
                        + "): the client gives up and closes the connection while the request may still run, then retries"
                        + " the key until a final answer");
        for (Duration timeout : cutTimeouts) {
            String key = freshKey();
            String b = s.body(key, body);
            Answer first = send(s, client(), key, true, b, timeout);
            if (first.status() != 0) {
                s.notes.add(key + ": answered " + first.status() + " within the " + timeout.toMillis()
                        + " ms timeout, so nothing was cut");
            }
            untilFinal(s, client(), key, true, b);
        }
        return s;
    }

    private Scenario changedBodyScenario() {
        Scenario s = new Scenario(
                "changed-body",
                "each key sent until a final answer, then the same key with a different body; a service that compares"
                        + " bodies refuses it (422 or another 4xx) and does not take effect again");
        HttpClient c = client();
        BodyTemplate other = changed();
        for (int i = 0; i < keys; i++) {
            String key = freshKey();
            long n = sequence.get();
            Answer first = untilFinal(s, c, key, true, s.body(key, body));
            Answer second = untilFinal(s, c, key, true, other.fill(key, n));
            if (first.success() && second.success()) {
                s.warnings.add(key + ": the changed body was answered " + second.status()
                        + " (success) instead of a refusal such as 422: a client that reuses a key by mistake is told"
                        + " its second request took effect");
            }
        }
        return s;
    }

    private Scenario noKey() {
        Scenario s = new Scenario(
                "no-key",
                "the same body sent twice without the " + keyHeader + " header (its {{key}} still filled, so the"
                        + " effects can be counted): reported, not judged");
        s.judged = false;
        HttpClient c = client();
        String key = freshKey();
        String b = s.body(key, body);
        untilFinal(s, c, key, false, b);
        untilFinal(s, c, key, false, b);
        return s;
    }

    private Scenario replay() {
        Scenario s = new Scenario(
                "replay",
                "each key sent until a final answer, then twice more: every replay must repeat the status, the body and"
                        + " the headers " + String.join(", ", replayHeaders) + " byte for byte");
        HttpClient c = client();
        for (int i = 0; i < keys; i++) {
            String key = freshKey();
            String b = s.body(key, body);
            Answer first = untilFinal(s, c, key, true, b);
            for (int r = 1; r <= 2; r++) {
                Answer again = untilFinal(s, c, key, true, b);
                List<String> diff = new ArrayList<>();
                if (again.status() != first.status()) {
                    diff.add("status " + first.status() + " then " + again.status());
                }
                if (!again.body().equals(first.body())) {
                    diff.add("body " + abbreviate(first.body()) + " then " + abbreviate(again.body()));
                }
                for (String h : replayHeaders) {
                    String x = first.headers().get(h);
                    String y = again.headers().get(h);
                    if (!Objects.equals(x, y)) {
                        diff.add(h + " " + x + " then " + y);
                    }
                }
                if (!diff.isEmpty()) {
                    s.warnings.add(
                            key + ": replay " + r + " differs from the first answer: " + String.join("; ", diff));
                }
            }
        }
        return s;
    }

    private Scenario kill(ServiceProcess service) {
        Scenario s = new Scenario(
                "kill",
                "one key per delay ("
                        + String.join(
                                ", ",
                                killAfter.stream()
                                        .map(d -> d.toMillis() + " ms")
                                        .toList())
                        + "): the request is sent, the service is killed (SIGKILL"
                        + (launch != null ? " of the launched process tree" : ", by the --restart command")
                        + ") that long after, started again, and the key retried until a final answer");
        for (Duration delay : killAfter) {
            String key = freshKey();
            String b = s.body(key, body);
            HttpClient first = client();
            CompletableFuture<Answer> inFlight =
                    CompletableFuture.supplyAsync(() -> send(s, first, key, true, b, finalAnswerTimeout));
            try {
                Thread.sleep(delay.toMillis()); // the moment of the kill is the scenario's input
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            long t0 = System.nanoTime();
            try {
                service.killAndRestart();
            } catch (UnreachableException e) {
                // Counted all the same: what the other scenarios and this key's first attempt left.
                s.warnings.add(key + ": " + e.getMessage());
                inFlight.join();
                break;
            }
            Answer a = inFlight.join();
            s.notes.add(String.format(
                    Locale.ROOT,
                    "%s: killed %d ms after sending; the first attempt got %s; ready again after %.1f s",
                    key,
                    delay.toMillis(),
                    a.outcome(),
                    (System.nanoTime() - t0) / 1e9));
            untilFinal(s, client(), key, true, b);
        }
        return s;
    }

    // ---- counting ----------------------------------------------------------------------------

    private List<ScenarioVerdict> count(List<EffectsQuery> queries, List<Scenario> scenarios) {
        Map<String, Boolean> keys = new LinkedHashMap<>();
        for (Scenario s : scenarios) {
            for (String key : s.keys.keySet()) {
                keys.put(key, s.succeeded(key));
            }
        }
        Map<String, List<Long>> effects = EffectsQuery.countAll(this::connection, queries, keys, settle, lostAfter);
        return scenarios.stream().map(s -> s.verdict(effects)).toList();
    }

    private static String oneLine(Throwable e) {
        String m = e.getMessage() == null
                ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + " " + e.getMessage();
        return m.replaceAll("\\s+", " ");
    }

    private static String abbreviate(String s) {
        return s.length() <= 120 ? "'" + s + "'" : "'" + s.substring(0, 120) + "…'";
    }

    /** One scenario's traffic, as it runs. */
    private final class Scenario {
        final String name;
        final String description;
        final long started = System.nanoTime();
        final Map<String, List<Answer>> keys = new LinkedHashMap<>();
        final Histogram histogram = new Histogram(3_600_000_000L, 3);
        final List<String> warnings = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        boolean judged = true;

        Scenario(String name, String description) {
            this.name = name;
            this.description = description;
        }

        synchronized String body(String key, BodyTemplate template) {
            keys.putIfAbsent(key, new ArrayList<>());
            return template.fill(key, sequence.get());
        }

        synchronized void record(String key, Answer a) {
            keys.computeIfAbsent(key, k -> new ArrayList<>()).add(a);
            histogram.recordValue(Math.min(a.micros(), histogram.getHighestTrackableValue()));
        }

        synchronized boolean succeeded(String key) {
            return keys.getOrDefault(key, List.of()).stream().anyMatch(Answer::success);
        }

        synchronized ScenarioVerdict verdict(Map<String, List<Long>> effects) {
            List<KeyResult> results = new ArrayList<>();
            Map<String, Long> outcomes = new TreeMap<>();
            for (Map.Entry<String, List<Answer>> e : keys.entrySet()) {
                List<Long> counts = effects.getOrDefault(e.getKey(), List.of());
                boolean ok = succeeded(e.getKey());
                results.add(new KeyResult(
                        e.getKey(),
                        e.getValue().stream().map(Answer::outcome).toList(),
                        ok,
                        counts,
                        judged ? KeyResult.judge(counts, ok) : KeyResult.NOT_JUDGED));
                for (Answer a : e.getValue()) {
                    outcomes.merge(a.status() == 0 ? outcomeClass(a.outcome()) : a.outcome(), 1L, Long::sum);
                }
            }
            List<String> findings = new ArrayList<>();
            for (KeyResult k : results) {
                if (KeyResult.DUPLICATE.equals(k.verdict())) {
                    findings.add(
                            k.key() + ": " + k.effectsText() + " effects (duplicate); answers " + summary(k.answers()));
                } else if (KeyResult.LOST.equals(k.verdict())) {
                    findings.add(k.key() + ": " + k.effectsText() + " effects although answered with success (lost);"
                            + " answers " + summary(k.answers()));
                } else if (KeyResult.NONE.equals(k.verdict())) {
                    notes.add(k.key() + ": no effect and no success answer (" + summary(k.answers()) + ")");
                }
            }
            String verdict;
            if (!judged) {
                verdict = ScenarioVerdict.INFO;
                for (KeyResult k : results) {
                    notes.add(k.key() + ": " + summary(k.answers()) + "; effects " + k.effectsText()
                            + (k.effects().stream().anyMatch(n -> n > 1)
                                    ? " (without a key each request took effect)"
                                    : ""));
                }
            } else if (!findings.isEmpty()) {
                verdict = ScenarioVerdict.FAIL;
            } else if (!warnings.isEmpty()) {
                verdict = ScenarioVerdict.WARN;
            } else {
                verdict = ScenarioVerdict.PASS;
            }
            findings.addAll(warnings);
            return ScenarioVerdict.of(name, description, verdict, results, histogram, outcomes, findings, notes);
        }
    }

    private static String outcomeClass(String outcome) {
        return outcome.startsWith("error: ") ? "error" : outcome.startsWith("cut after") ? "cut" : outcome;
    }

    /** {@code 409 x3, 201} */
    static String summary(List<String> answers) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < answers.size()) {
            int j = i;
            while (j < answers.size() && answers.get(j).equals(answers.get(i))) {
                j++;
            }
            out.add(j - i > 1 ? answers.get(i) + " x" + (j - i) : answers.get(i));
            i = j;
        }
        return String.join(", ", out);
    }
}

package io.dupguard.examples.bench;

import io.dupguard.examples.payments.PaymentsApplication;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.core.userdetails.UserDetailsService;

/**
 * Requests/s and latency of the example's POST /payments without a filter, with dupguard's filter
 * on Redis and on PostgreSQL, and with a hand-written Redis filter (the ceiling), all four apps up
 * at once and driven in turn in the same run. Writes docs/benchmarks-spring-boot.md.
 *
 * <pre>
 * ./mvnw -q -pl examples/payments-service -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=/tmp/example.cp -Dmdep.includeScope=test
 * cd examples/payments-service
 * java -Xms1g -Xmx2g -cp target/test-classes:target/classes:$(cat /tmp/example.cp) \
 *     io.dupguard.examples.bench.FilterBenchmark $PWD/../../docs/benchmarks-spring-boot.md
 * </pre>
 */
public final class FilterBenchmark {
    static final int THREADS = 16;
    /** {@code -Dbench.smoke=true}: 1 s windows, one round, to prove the run works (numbers meaningless). */
    static final boolean SMOKE = Boolean.getBoolean("bench.smoke");

    static final Duration WARMUP = Duration.ofSeconds(SMOKE ? 1 : 3);
    static final Duration MEASURE = Duration.ofSeconds(SMOKE ? 1 : 8);
    static final int ROUNDS = SMOKE ? 1 : 3;
    static final String COMMAND =
            """
            ./mvnw -q -pl examples/payments-service -am test-compile dependency:build-classpath \\
                -Dmdep.outputFile=/tmp/example.cp -Dmdep.includeScope=test
            cd examples/payments-service
            java -Xms1g -Xmx2g -cp target/test-classes:target/classes:$(cat /tmp/example.cp) \\
                io.dupguard.examples.bench.FilterBenchmark $PWD/../../docs/benchmarks-spring-boot.md""";
    static final String PG =
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    record Variant(String name, String[] properties, Class<?>[] extra) {}

    record Round(double rps, double p50, double p99, long errors) {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/benchmarks-spring-boot.md");
        String loadStart = load();
        Instant started = Instant.now();
        // before the apps open their pools (4 x 10 connections), on a quiet machine
        double redisRtt = redisRoundTrip();
        double pgRtt = pgRoundTrip();
        List<Variant> variants = List.of(
                new Variant("no filter", new String[] {"dupguard.http.enabled=false"}, new Class<?>[0]),
                new Variant(
                        "hand-written filter, Redis (ceiling)",
                        new String[] {"dupguard.http.enabled=false"},
                        new Class<?>[] {CeilingConfig.class}),
                new Variant("dupguard filter, Redis", new String[0], new Class<?>[0]),
                new Variant(
                        "dupguard filter, PostgreSQL",
                        new String[] {"dupguard.store=jdbc", "dupguard.jdbc.idempotency-table=bench_http_idempotency"},
                        new Class<?>[0]));
        Map<Variant, ConfigurableApplicationContext> apps = new LinkedHashMap<>();
        Map<Variant, List<Round>> results = new LinkedHashMap<>();
        try {
            for (Variant v : variants) {
                List<Class<?>> sources = new ArrayList<>(List.of(PaymentsApplication.class));
                sources.addAll(Arrays.asList(v.extra()));
                List<String> props = new ArrayList<>(List.of(
                        "server.port=0",
                        "spring.datasource.url=" + PG,
                        "spring.datasource.hikari.maximum-pool-size=10",
                        "spring.rabbitmq.listener.simple.auto-startup=false",
                        "logging.level.root=WARN"));
                props.addAll(Arrays.asList(v.properties()));
                apps.put(
                        v,
                        new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
                                .properties(props.toArray(String[]::new))
                                .run());
                results.put(v, new ArrayList<>());
            }
            HttpClient http =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            for (Variant v : variants) {
                drive(http, port(apps.get(v)), WARMUP); // unmeasured: JIT, pools
                checkSetup(http, v, apps.get(v));
            }
            for (int r = 0; r < ROUNDS; r++) {
                List<Variant> order = new ArrayList<>(variants);
                if (r % 2 == 1) {
                    Collections.reverse(order);
                }
                for (Variant v : order) {
                    int port = port(apps.get(v));
                    drive(http, port, Duration.ofSeconds(1));
                    results.get(v).add(drive(http, port, MEASURE));
                }
            }
            write(out, started, loadStart, load(), results, redisRtt, pgRtt);
        } finally {
            ConfigurableApplicationContext any = apps.values().iterator().next();
            any.getBean(RabbitAdmin.class).purgeQueue(PaymentsApplication.CREDITS, false);
            for (ConfigurableApplicationContext c : apps.values()) {
                c.close();
            }
        }
    }

    /**
     * Refuses to measure a setup other than the one described: the demo password must still be
     * stored as {@code {noop}} (no BCrypt per request), and with a filter, keys must be scoped to
     * the principal (shop-b's first request with shop-a's key runs, it is not shop-a's replay).
     */
    static void checkSetup(HttpClient http, Variant v, ConfigurableApplicationContext app)
            throws IOException, InterruptedException {
        String stored = app.getBean(UserDetailsService.class)
                .loadUserByUsername("shop-a")
                .getPassword();
        if (stored == null || !stored.startsWith("{noop}")) {
            throw new IllegalStateException(v.name() + ": shop-a's password is stored as "
                    + (stored == null ? "null" : stored.substring(0, Math.min(8, stored.length())))
                    + "…, not {noop}: the run would measure the password hash, not the filter");
        }
        String key = UUID.randomUUID().toString();
        HttpResponse<String> a =
                http.send(post(port(app), "shop-a:secret-a", key), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> b =
                http.send(post(port(app), "shop-b:secret-b", key), HttpResponse.BodyHandlers.ofString());
        if (a.statusCode() != 201 || b.statusCode() != 201) {
            throw new IllegalStateException(
                    v.name() + ": expected 201 for both principals, got " + a.statusCode() + " and " + b.statusCode());
        }
        if (b.headers().firstValue("Idempotent-Replayed").isPresent()
                || a.body().equals(b.body())) {
            throw new IllegalStateException(v.name() + ": shop-b received shop-a's response for the same key");
        }
    }

    static HttpRequest post(int port, String user, String key) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/payments"))
                .header(
                        "Authorization",
                        "Basic " + Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"account\":\"bench-" + Thread.currentThread().getId() + "\",\"amount\":\"1.00\"}"))
                .build();
    }

    private static int port(ConfigurableApplicationContext app) {
        return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    /** 16 threads in a closed loop, every request with a new key; latencies in ms. */
    static Round drive(HttpClient http, int port, Duration window) throws InterruptedException {
        List<long[]> latencies = Collections.synchronizedList(new ArrayList<>());
        AtomicLong errors = new AtomicLong();
        CountDownLatch done = new CountDownLatch(THREADS);
        long end = System.nanoTime() + window.toNanos();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                long[] mine = new long[200_000];
                int n = 0;
                try {
                    while (System.nanoTime() < end && n < mine.length) {
                        HttpRequest request =
                                post(port, "shop-a:secret-a", UUID.randomUUID().toString());
                        long start = System.nanoTime();
                        try {
                            HttpResponse<Void> r = http.send(request, HttpResponse.BodyHandlers.discarding());
                            if (r.statusCode() != 201) {
                                errors.incrementAndGet();
                            }
                        } catch (IOException e) {
                            errors.incrementAndGet();
                        }
                        mine[n++] = System.nanoTime() - start;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    latencies.add(Arrays.copyOf(mine, n));
                    done.countDown();
                }
            });
            thread.start();
        }
        done.await();
        long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        double rps = all.length / (window.toNanos() / 1e9);
        return new Round(rps, pct(all, 0.50), pct(all, 0.99), errors.get());
    }

    private static double pct(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
    }

    private static double median(List<Double> values) {
        List<Double> v = new ArrayList<>(values);
        Collections.sort(v);
        return v.get(v.size() / 2);
    }

    static double redisRoundTrip() {
        RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            long[] t = new long[2000];
            for (int i = 0; i < t.length; i++) {
                long s = System.nanoTime();
                c.sync().ping();
                t[i] = System.nanoTime() - s;
            }
            Arrays.sort(t);
            return pct(t, 0.5);
        } finally {
            client.shutdown();
        }
    }

    static double pgRoundTrip() throws Exception {
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement()) {
            long[] t = new long[2000];
            for (int i = 0; i < t.length; i++) {
                long st = System.nanoTime();
                s.execute("select 1");
                t[i] = System.nanoTime() - st;
            }
            Arrays.sort(t);
            return pct(t, 0.5);
        }
    }

    static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }

    private static void write(
            Path out,
            Instant started,
            String loadStart,
            String loadEnd,
            Map<Variant, List<Round>> results,
            double redisRtt,
            double pgRtt)
            throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmark: the HTTP Idempotency-Key filter\n\n")
                .append("Requests/s and latency of the example service's `POST /payments` (Spring Security basic auth")
                .append(" with the demo's `{noop}` passwords kept as stored — see `ApiSecurity`; with BCrypt")
                .append(" every row would measure ~70 ms of password hashing per request —")
                .append(
                        " a card-network call and a PostgreSQL insert, the credit enqueued in the retry log and published after the commit) without a filter, with dupguard's filter on Redis and")
                .append(
                        " on PostgreSQL, and with a hand-written Redis filter — the ceiling: SET NX PX to claim, SET to")
                .append(
                        " complete, the leanest correct design (see `HandWrittenIdempotencyFilter`). All four apps run in")
                .append(
                        " one JVM and are driven in turn, so the ratios compare rows of one run. Every request carries a")
                .append(" new key (the first-request path: claim + complete).\n\n")
                .append("Written by `FilterBenchmark` (examples/payments-service test sources).\n\n## Command\n\n```\n")
                .append(COMMAND)
                .append("\n```\n\n")
                .append("## Machine\n\n| | |\n|---|---|\n")
                .append("| started | ")
                .append(started)
                .append(" |\n")
                .append("| cores | ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" (shared with the servers and other work) |\n")
                .append("| Java | ")
                .append(System.getProperty("java.vm.name"))
                .append(' ')
                .append(System.getProperty("java.version"))
                .append(" |\n")
                .append("| JVM args | ")
                .append(String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
                .append(" |\n")
                .append("| load average at start | ")
                .append(loadStart)
                .append(" |\n")
                .append("| load average at end | ")
                .append(loadEnd)
                .append(" |\n")
                .append("| Redis round trip (PING, p50) | ")
                .append(String.format("%.3f ms", redisRtt))
                .append(" |\n")
                .append("| PostgreSQL round trip (select 1, p50) | ")
                .append(String.format("%.3f ms", pgRtt))
                .append(" |\n\n")
                .append("## Settings\n\n")
                .append(THREADS)
                .append(" client threads (java.net.http, HTTP/1.1 keep-alive) in a closed")
                .append(" loop; every app warmed ")
                .append(WARMUP.toSeconds())
                .append(" s unmeasured, then ")
                .append(ROUNDS)
                .append(" rounds of 1 s warm-up + ")
                .append(MEASURE.toSeconds())
                .append(" s measured per app, the order reversed")
                .append(" every other round. The table shows the **median** round of each row (requests/s, p50, p99);")
                .append(" the last column lists every round's requests/s.\n\n## Results\n\n")
                .append(
                        "| variant | requests/s | vs no filter | p50 ms | p99 ms | p50 added vs no filter | errors | rounds (req/s) |\n")
                .append("|---|---|---|---|---|---|---|---|\n");
        double baseRps = 0;
        double baseP50 = 0;
        for (Map.Entry<Variant, List<Round>> e : results.entrySet()) {
            List<Round> rounds = e.getValue();
            double rps = median(rounds.stream().map(Round::rps).toList());
            double p50 = median(rounds.stream().map(Round::p50).toList());
            double p99 = median(rounds.stream().map(Round::p99).toList());
            long errors = rounds.stream().mapToLong(Round::errors).sum();
            if (baseRps == 0) {
                baseRps = rps;
                baseP50 = p50;
            }
            md.append(String.format(
                    "| %s | %.0f | %.0f %% | %.1f | %.1f | %+.1f ms | %d | %s |%n",
                    e.getKey().name(),
                    rps,
                    100 * rps / baseRps,
                    p50,
                    p99,
                    p50 - baseP50,
                    errors,
                    String.join(
                            ", ",
                            rounds.stream()
                                    .map(r -> String.format("%.0f", r.rps()))
                                    .toList())));
        }
        md.append(
                        "\n## Notes\n\nThe filter's own work per first request is two store round trips (claim, complete) plus")
                .append(
                        " hashing the body; on 2 shared cores the added latency is dominated by CPU contention between the")
                .append(" 16 client threads, Tomcat, PostgreSQL, Redis and RabbitMQ rather than by the round trips")
                .append(" (")
                .append(String.format("%.2f", redisRtt))
                .append(" ms Redis, ")
                .append(String.format("%.2f", pgRtt))
                .append(
                        " ms PostgreSQL at p50 when idle). Compare the dupguard Redis row with the hand-written ceiling:")
                .append(" both make the same two round trips.\n\n")
                .append("Before each app is measured the run checks its setup and stops otherwise: the demo password")
                .append(" is still stored as `{noop}` (Spring Security upgrades it to BCrypt after the first login")
                .append(
                        " when the user store is a `UserDetailsPasswordService`; BCrypt costs ~70 ms of CPU per request and capped an idle")
                .append(" 2-core run at ~27 requests/s in every row), and two principals sending one key get two")
                .append(" independent payments (key scoping on).\n");
        Files.writeString(out, md.toString());
        System.out.println(md);
    }
}

package io.dupguard.examples.bench;

import io.dupguard.examples.payments.PaymentsApplication;
import io.dupguard.spring.IdempotentExecution.Mode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
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

/**
 * Requests/s and latency of the example's POST /payments without a filter, with dupguard's filter
 * in each of its modes (transactional on PostgreSQL, backstop on Redis + PostgreSQL, store on
 * Redis), and with the hand-written filter that is each mode's ceiling ({@link
 * HandWrittenIdempotencyFilter}), all seven apps up at once and driven in turn in the same run.
 * Writes docs/benchmarks-spring-boot.md ({@link BenchReport}); {@code -Dbench.smoke=true} runs
 * 1 s windows to prove the run works.
 *
 * <pre>
 * ./mvnw -q -pl examples/payments-service -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=/tmp/bench-example.cp -Dmdep.includeScope=test
 * cd examples/payments-service
 * java -Xms1g -Xmx3g -cp target/test-classes:target/classes:$(cat /tmp/bench-example.cp) \
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
                -Dmdep.outputFile=/tmp/bench-example.cp -Dmdep.includeScope=test
            cd examples/payments-service
            java -Xms1g -Xmx3g -cp target/test-classes:target/classes:$(cat /tmp/bench-example.cp) \\
                io.dupguard.examples.bench.FilterBenchmark $PWD/../../docs/benchmarks-spring-boot.md""";
    static final String PG =
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    /** Every request holds a connection for its transaction and a second one for the gateway's. */
    static final int POOL = 2 * THREADS;
    /** The bench's own outbox table and queue: another process's workers never take its tasks. */
    static final String RETRY_TABLE = "bench_retry_tasks";

    static final String CREDITS = "bench.payments.credits";
    /** The longest wait for the outbox between two windows. */
    static final Duration OUTBOX_DRAIN = Duration.ofSeconds(60);
    /** Emptied before the run, so every row starts on an empty table. */
    static final List<String> TABLES = List.of(
            "bench_http_transactional",
            "bench_http_backstop",
            CeilingConfig.TRANSACTIONAL_TABLE,
            CeilingConfig.BACKSTOP_TABLE,
            RETRY_TABLE);

    /** What concurrent duplicates of a first request get from a variant (the setup check). */
    enum Duplicates {
        /** No filter: not checked. */
        NOT_CHECKED,
        /** They wait on the key's row lock, then replay the first answer. */
        WAIT_AND_REPLAY,
        /** Redis answers 409 while the first runs; once done, the replay. */
        REJECT_OR_REPLAY
    }

    /**
     * One app of the run.
     *
     * @param ceiling the name of the variant this one is compared to, or null
     * @param mode the mode dupguard's filter must run in, or null where it must be off
     */
    record Variant(
            String name, String ceiling, Mode mode, Duplicates duplicates, Class<?>[] extra, String... properties) {}

    record Round(double rps, double p50, double p99, long errors) {}

    static final String NO_FILTER = "no filter";
    static final String CEILING_TRANSACTIONAL = "hand-written, transactional (ceiling)";
    static final String CEILING_BACKSTOP = "hand-written, backstop (ceiling)";
    static final String CEILING_REDIS = "hand-written, Redis (ceiling)";

    static final List<Variant> VARIANTS = List.of(
            new Variant(NO_FILTER, null, null, Duplicates.NOT_CHECKED, new Class<?>[0], "dupguard.http.enabled=false"),
            new Variant(
                    "dupguard, transactional (PostgreSQL)",
                    CEILING_TRANSACTIONAL,
                    Mode.TRANSACTIONAL,
                    Duplicates.WAIT_AND_REPLAY,
                    new Class<?>[0],
                    "dupguard.store=jdbc",
                    "dupguard.http.mode=transactional",
                    "dupguard.jdbc.idempotency-table=bench_http_transactional"),
            new Variant(
                    CEILING_TRANSACTIONAL,
                    null,
                    null,
                    Duplicates.WAIT_AND_REPLAY,
                    new Class<?>[] {CeilingConfig.Transactional.class},
                    "dupguard.http.enabled=false"),
            new Variant(
                    "dupguard, backstop (Redis + PostgreSQL)",
                    CEILING_BACKSTOP,
                    Mode.BACKSTOP,
                    Duplicates.REJECT_OR_REPLAY,
                    new Class<?>[0],
                    "dupguard.store=redis",
                    "dupguard.http.mode=backstop",
                    "dupguard.jdbc.idempotency-table=bench_http_backstop"),
            new Variant(
                    CEILING_BACKSTOP,
                    null,
                    null,
                    Duplicates.REJECT_OR_REPLAY,
                    new Class<?>[] {CeilingConfig.Backstop.class},
                    "dupguard.http.enabled=false"),
            new Variant(
                    "dupguard, store mode (Redis)",
                    CEILING_REDIS,
                    Mode.STORE,
                    Duplicates.REJECT_OR_REPLAY,
                    new Class<?>[0],
                    "dupguard.store=redis",
                    "dupguard.http.mode=store"),
            new Variant(
                    CEILING_REDIS,
                    null,
                    null,
                    Duplicates.REJECT_OR_REPLAY,
                    new Class<?>[] {CeilingConfig.Redis.class},
                    "dupguard.http.enabled=false"));

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/benchmarks-spring-boot.md");
        // Idle pools shrink within seconds (to minimum-idle), so the apps not being driven hold few
        // of PostgreSQL's connections (max_connections 100 by default).
        System.setProperty("com.zaxxer.hikari.housekeeping.periodMs", "5000");
        String loadStart = load();
        Instant started = Instant.now();
        // before the apps open their pools, on a quiet machine
        double redisRtt = redisRoundTrip();
        double pgRtt = pgRoundTrip();
        emptyTables();
        Map<Variant, ConfigurableApplicationContext> apps = new LinkedHashMap<>();
        Map<Variant, List<Round>> results = new LinkedHashMap<>();
        try {
            for (Variant v : VARIANTS) {
                apps.put(v, start(v));
                results.put(v, new ArrayList<>());
            }
            HttpClient http =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            for (Variant v : VARIANTS) {
                drive(http, port(apps.get(v)), WARMUP); // unmeasured: JIT, pools
                SetupCheck.check(http, v, apps.get(v));
            }
            Duration outboxWait = Duration.ZERO;
            for (int r = 0; r < ROUNDS; r++) {
                List<Variant> order = new ArrayList<>(VARIANTS);
                if (r % 2 == 1) {
                    Collections.reverse(order);
                }
                for (Variant v : order) {
                    int port = port(apps.get(v));
                    Duration waited = awaitOutbox();
                    if (waited.compareTo(outboxWait) > 0) {
                        outboxWait = waited;
                    }
                    drive(http, port, Duration.ofSeconds(1));
                    results.get(v).add(drive(http, port, MEASURE));
                }
            }
            BenchReport.write(out, started, loadStart, load(), results, redisRtt, pgRtt, outboxWait);
        } finally {
            if (!apps.isEmpty()) {
                RabbitAdmin rabbit = apps.values().iterator().next().getBean(RabbitAdmin.class);
                if (rabbit.getQueueProperties(CREDITS) != null) {
                    rabbit.purgeQueue(CREDITS, false);
                }
            }
            for (ConfigurableApplicationContext c : apps.values()) {
                c.close();
            }
        }
    }

    private static ConfigurableApplicationContext start(Variant v) {
        List<Class<?>> sources = new ArrayList<>(List.of(PaymentsApplication.class));
        sources.addAll(Arrays.asList(v.extra()));
        List<String> props = new ArrayList<>(List.of(
                "server.port=0",
                "spring.datasource.url=" + PG,
                "spring.datasource.hikari.maximum-pool-size=" + POOL,
                "spring.datasource.hikari.minimum-idle=2",
                "spring.datasource.hikari.idle-timeout=10000",
                "spring.rabbitmq.listener.simple.auto-startup=false",
                "payments.credits.queue=" + CREDITS,
                "dupguard.retry.table=" + RETRY_TABLE,
                "logging.level.root=WARN"));
        props.addAll(Arrays.asList(v.properties()));
        // As command-line arguments: they override application.properties (default properties would not).
        return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
                .run(props.stream().map(p -> "--" + p).toArray(String[]::new));
    }

    static HttpRequest post(int port, String user, String key, String account) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/payments"))
                .header(
                        "Authorization",
                        "Basic " + Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"account\":\"" + account + "\",\"amount\":\"1.00\"}"))
                .build();
    }

    static int port(ConfigurableApplicationContext app) {
        return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    /** 16 threads in a closed loop, every request with a new key; latencies in ms. */
    static Round drive(HttpClient http, int port, Duration window) throws InterruptedException {
        List<long[]> latencies = Collections.synchronizedList(new ArrayList<>());
        AtomicLong errors = new AtomicLong();
        CountDownLatch done = new CountDownLatch(THREADS);
        long end = System.nanoTime() + window.toNanos();
        for (int t = 0; t < THREADS; t++) {
            String account = "bench-" + t;
            Thread thread = new Thread(() -> {
                long[] mine = new long[200_000];
                int n = 0;
                try {
                    while (System.nanoTime() < end && n < mine.length) {
                        HttpRequest request =
                                post(port, "shop-a:secret-a", UUID.randomUUID().toString(), account);
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

    static double pct(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
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

    /**
     * Waits until the retry log has published every credit due (at most {@link #OUTBOX_DRAIN}), so
     * that the previous app's outbox does not run during the next app's window.
     *
     * @return how long it waited
     */
    static Duration awaitOutbox() throws Exception {
        long start = System.nanoTime();
        long deadline = start + OUTBOX_DRAIN.toNanos();
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery("select count(*) from " + RETRY_TABLE
                        + " where state = 'R' or (state = 'P' and due_at <= now())")) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        break;
                    }
                }
                Thread.sleep(50); // polling the table: no notification says "drained"
            }
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static void emptyTables() throws Exception {
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement()) {
            for (String table : TABLES) {
                s.execute("do $$ begin if to_regclass('" + table + "') is not null then truncate " + table
                        + "; end if; end $$");
            }
        }
    }

    static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }
}

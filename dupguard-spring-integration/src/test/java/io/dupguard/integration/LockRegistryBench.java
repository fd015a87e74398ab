package io.dupguard.integration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Spring Integration's {@code JdbcLockRegistry} and {@code RedisLockRegistry} against {@link
 * DupguardLockRegistry} on dupguard's JDBC (PostgreSQL) and Redis lock providers, each through the
 * {@code LockRegistry} API as its users call it: {@code obtain(key).lock()} then {@code unlock()}
 * per operation, threads on their own keys (uncontended), each registry on its own pool or client,
 * the peer and the adapter alternating round by round. Prints a Markdown table of the median round
 * (operations/s, p50 and p99 of lock+unlock) and the ratios. Not a test: {@code scripts/bench-registry}
 * runs it from the test class path, where Spring Integration 7 lives.
 *
 * <p>Arguments: {@code [threads] [seconds per round] [rounds]} (default 8, 10, 5); the servers from
 * {@code -Ddupguard.pg.url} and {@code -Ddupguard.redis.url}.
 */
public final class LockRegistryBench {
    private LockRegistryBench() {}

    record Round(double perSecond, double p50Micros, double p99Micros) {}

    record Row(String name, LockRegistry registry, List<Round> rounds) {
        Round median() {
            List<Round> sorted = new ArrayList<>(rounds);
            sorted.sort(Comparator.comparingDouble(Round::perSecond));
            return sorted.get(sorted.size() / 2);
        }
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        String pgUrl = System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        URI redis = URI.create(System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379"));
        List<AutoCloseable> toClose = new ArrayList<>();
        try {
            HikariDataSource springPool = pool(pgUrl, "spring", threads, toClose);
            HikariDataSource dupguardPool = pool(pgUrl, "dupguard", threads, toClose);
            try (Connection c = springPool.getConnection();
                    Statement st = c.createStatement()) {
                st.execute(springLockTable());
                st.execute("DELETE FROM BENCH_LOCK");
            }
            DefaultLockRepository repository = new DefaultLockRepository(springPool);
            repository.setPrefix("BENCH_");
            repository.setRegion("bench");
            repository.setTransactionManager(new DataSourceTransactionManager(springPool));
            repository.afterPropertiesSet();
            repository.afterSingletonsInstantiated();
            repository.start();
            LockRegistry springJdbc = new JdbcLockRegistry(repository);
            LockRegistry dupguardJdbc = DupguardLockRegistry.builder(JdbcLockProvider.builder(dupguardPool)
                            .createSchemaIfMissing(true)
                            .build())
                    .build();

            LettuceConnectionFactory factory =
                    new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.getHost(), redis.getPort()));
            factory.afterPropertiesSet();
            factory.start();
            toClose.add(factory::destroy);
            RedisLockRegistry springRedis = new RedisLockRegistry(factory, "bench:si-registry");
            toClose.add(springRedis::destroy);
            RedisClient client = RedisClient.create(redis.toString());
            toClose.add(client::shutdown);
            RedisLockProvider redisLocks = RedisLockProvider.create(client);
            toClose.add(redisLocks);
            LockRegistry dupguardRedis =
                    DupguardLockRegistry.builder(redisLocks).build();

            List<Row[]> pairs = List.of(
                    new Row[] {
                        new Row("Spring Integration JdbcLockRegistry (PostgreSQL)", springJdbc, new ArrayList<>()),
                        new Row(
                                "DupguardLockRegistry on JdbcLockProvider (PostgreSQL)",
                                dupguardJdbc,
                                new ArrayList<>())
                    },
                    new Row[] {
                        new Row("Spring Integration RedisLockRegistry", springRedis, new ArrayList<>()),
                        new Row("DupguardLockRegistry on RedisLockProvider", dupguardRedis, new ArrayList<>())
                    });
            for (Row[] pair : pairs) { // warm-up: JIT, pools, the first row per key
                for (Row row : pair) {
                    run(row.registry(), row.name(), threads, 3);
                }
            }
            for (int r = 0; r < rounds; r++) {
                for (Row[] pair : pairs) {
                    for (int i = 0; i < 2; i++) {
                        Row row = pair[r % 2 == 0 ? i : 1 - i]; // who goes first alternates
                        Histogram h = run(row.registry(), row.name(), threads, seconds);
                        row.rounds()
                                .add(new Round(
                                        h.getTotalCount() / (double) seconds,
                                        h.getValueAtPercentile(50) / 1000.0,
                                        h.getValueAtPercentile(99) / 1000.0));
                    }
                }
            }
            System.out.println(
                    "| registry | lock+unlock/s (median round) | p50 (µs) | p99 (µs) | rounds (/s) | adapter ÷ peer |");
            System.out.println("|---|---:|---:|---:|---|---:|");
            for (Row[] pair : pairs) {
                for (int i = 0; i < 2; i++) {
                    Row row = pair[i];
                    Round m = row.median();
                    StringBuilder all = new StringBuilder();
                    for (Round x : row.rounds()) {
                        all.append(all.length() == 0 ? "" : " · ")
                                .append(String.format(Locale.ROOT, "%,.0f", x.perSecond()));
                    }
                    String ratio = i == 0
                            ? ""
                            : String.format(
                                    Locale.ROOT,
                                    "**%.3f×**",
                                    m.perSecond() / pair[0].median().perSecond());
                    System.out.printf(
                            Locale.ROOT,
                            "| %s | %,.0f | %,.0f | %,.0f | %s | %s |%n",
                            row.name(),
                            m.perSecond(),
                            m.p50Micros(),
                            m.p99Micros(),
                            all,
                            ratio);
                }
            }
            System.out.printf(
                    Locale.ROOT, "%n%d threads on their own keys, %d s rounds, %d rounds%n", threads, seconds, rounds);
        } finally {
            for (int i = toClose.size() - 1; i >= 0; i--) {
                toClose.get(i).close();
            }
        }
    }

    private static HikariDataSource pool(String url, String label, int size, List<AutoCloseable> toClose) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setMaximumPoolSize(size);
        hc.setMinimumIdle(size);
        hc.setPoolName("bench-registry-" + label);
        HikariDataSource ds = new HikariDataSource(hc);
        toClose.add(ds);
        return ds;
    }

    /** The INT_LOCK table of the DDL shipped in spring-integration-jdbc, under the prefix BENCH_. */
    private static String springLockTable() throws IOException {
        String resource = "org/springframework/integration/jdbc/schema-postgresql.sql";
        String ddl;
        try (InputStream in = DefaultLockRepository.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the class path");
            }
            ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Matcher m = Pattern.compile("CREATE TABLE INT_LOCK\\s*\\(.*?\\)\\s*;", Pattern.DOTALL)
                .matcher(ddl);
        if (!m.find()) {
            throw new IllegalStateException("no CREATE TABLE INT_LOCK in " + resource);
        }
        String create = m.group().trim();
        return create.substring(0, create.length() - 1)
                .replace("CREATE TABLE INT_LOCK", "CREATE TABLE IF NOT EXISTS BENCH_LOCK")
                .replace("constraint INT_LOCK_PK", "constraint BENCH_LOCK_PK");
    }

    /** {@code threads} threads, each on its own key, lock+unlock for {@code seconds}. */
    private static Histogram run(LockRegistry registry, String label, int threads, int seconds)
            throws InterruptedException {
        Recorder recorder = new Recorder(3);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        CountDownLatch done = new CountDownLatch(threads);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            String key = "bench-key-" + t;
            Thread thread = new Thread(() -> {
                try {
                    Lock lock = registry.obtain(key);
                    while (System.nanoTime() < end) {
                        long start = System.nanoTime();
                        lock.lock();
                        lock.unlock();
                        recorder.recordValue(System.nanoTime() - start);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            });
            thread.start();
        }
        done.await();
        if (failure.get() != null) {
            throw new IllegalStateException(label + " failed", failure.get());
        }
        return recorder.getIntervalHistogram();
    }
}

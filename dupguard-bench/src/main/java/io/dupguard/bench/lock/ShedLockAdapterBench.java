package io.dupguard.bench.lock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.shedlock.DupguardShedLockProvider;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * ShedLock's {@code JdbcTemplateLockProvider} against {@code DupguardShedLockProvider} on dupguard's
 * {@code JdbcLockProvider}, both through ShedLock's {@code LockProvider} API on PostgreSQL: threads
 * on their own job names (uncontended), one {@code lock} + {@code unlock} per execution, each provider
 * on its own pool, rounds alternating. Prints a Markdown table (median round) to standard output.
 *
 * <p>Arguments: {@code [threads] [seconds per round] [rounds]} (default 8, 10, 3); the JDBC URL from
 * {@code -Ddupguard.pg.url}.
 */
public final class ShedLockAdapterBench {
    private static final String TABLE = "bench_shedlock";
    private static final Duration AT_MOST = Duration.ofSeconds(30);

    private ShedLockAdapterBench() {}

    record Result(String name, double perSecond, double p50Micros, double p99Micros) {}

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        String url = System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        try (HikariDataSource shedPool = pool(url, "shedlock", threads);
                HikariDataSource dupPool = pool(url, "dupguard", threads)) {
            try (Connection c = shedPool.getConnection();
                    Statement st = c.createStatement()) {
                st.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (name VARCHAR(64) NOT NULL,"
                        + " lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL,"
                        + " locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
                st.execute("DELETE FROM " + TABLE);
            }
            LockProvider shedlock = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                    .withJdbcTemplate(new JdbcTemplate(shedPool))
                    .withTableName(TABLE)
                    .usingDbTime()
                    .build());
            LockProvider adapter = DupguardShedLockProvider.create(JdbcLockProvider.builder(dupPool)
                    .createSchemaIfMissing(true)
                    .build());
            String[] names = {
                "ShedLock JdbcTemplateLockProvider (usingDbTime)", "DupguardShedLockProvider on JdbcLockProvider"
            };
            LockProvider[] providers = {shedlock, adapter};
            // Warm-up: JIT, pools, the first INSERT per name.
            for (int i = 0; i < 2; i++) {
                run(providers[i], threads, 3);
            }
            List<List<Result>> results = List.of(new ArrayList<>(), new ArrayList<>());
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < 2; i++) {
                    Histogram h = run(providers[i], threads, seconds);
                    results.get(i)
                            .add(new Result(
                                    names[i],
                                    h.getTotalCount() / (double) seconds,
                                    h.getValueAtPercentile(50) / 1000.0,
                                    h.getValueAtPercentile(99) / 1000.0));
                }
            }
            System.out.println(
                    "| provider | executions/s (median round) | p50 lock+unlock (µs) | p99 (µs) | rounds (executions/s) |");
            System.out.println("|---|---|---|---|---|");
            double[] medians = new double[2];
            for (int i = 0; i < 2; i++) {
                List<Result> rs = new ArrayList<>(results.get(i));
                rs.sort((a, b) -> Double.compare(a.perSecond(), b.perSecond()));
                Result median = rs.get(rs.size() / 2);
                medians[i] = median.perSecond();
                StringBuilder all = new StringBuilder();
                for (Result x : results.get(i)) {
                    all.append(all.length() == 0 ? "" : " · ")
                            .append(String.format(Locale.ROOT, "%,.0f", x.perSecond()));
                }
                System.out.printf(
                        Locale.ROOT,
                        "| %s | %,.0f | %,.0f | %,.0f | %s |%n",
                        names[i],
                        median.perSecond(),
                        median.p50Micros(),
                        median.p99Micros(),
                        all);
            }
            System.out.printf(
                    Locale.ROOT,
                    "%nadapter ÷ ShedLock JDBC = %.2f× (%d threads, own names, %d s rounds)%n",
                    medians[1] / medians[0],
                    threads,
                    seconds);
        }
    }

    private static HikariDataSource pool(String url, String label, int size) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setMaximumPoolSize(size);
        hc.setMinimumIdle(size);
        hc.setPoolName("bench-shedlock-" + label);
        return new HikariDataSource(hc);
    }

    /** {@code threads} threads, each on its own job name, lock+unlock for {@code seconds}. */
    private static Histogram run(LockProvider provider, int threads, int seconds) throws InterruptedException {
        Recorder recorder = new Recorder(3);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        CountDownLatch done = new CountDownLatch(threads);
        AtomicLong refused = new AtomicLong();
        for (int t = 0; t < threads; t++) {
            String name = "bench-job-" + t;
            Thread thread = new Thread(() -> {
                try {
                    while (System.nanoTime() < end) {
                        long start = System.nanoTime();
                        SimpleLock lock = provider.lock(
                                        new LockConfiguration(ClockProvider.now(), name, AT_MOST, Duration.ZERO))
                                .orElse(null);
                        if (lock == null) {
                            refused.incrementAndGet();
                            continue;
                        }
                        lock.unlock();
                        recorder.recordValue(System.nanoTime() - start);
                    }
                } finally {
                    done.countDown();
                }
            });
            thread.start();
        }
        done.await();
        if (refused.get() > 0) {
            throw new IllegalStateException(refused + " uncontended lock attempts were refused");
        }
        return recorder.getIntervalHistogram();
    }
}

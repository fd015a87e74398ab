package io.dupguard.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.bench.DedupeBench.Phase;
import io.dupguard.jdbc.UniqueViolation;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;

/** Naive select-then-insert writers, each on its own one-connection pool; p99 per phase. */
final class DedupeWriters implements AutoCloseable {
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Map<Phase, Recorder> recorders = new EnumMap<>(Phase.class);
    private final Map<Phase, double[]> results = new EnumMap<>(Phase.class);
    private final AtomicLong sequence = new AtomicLong();
    private volatile Phase phase = Phase.IDLE;
    private volatile boolean stop;
    private final String select;
    private final double hotShare;

    DedupeWriters(String url, String lookup, int n, double hotShare) {
        this.select = "SELECT id FROM " + DedupeBench.TABLE + " WHERE " + lookup;
        this.hotShare = hotShare;
        for (Phase p : Phase.values()) {
            recorders.put(p, new Recorder(3));
        }
        for (int i = 0; i < n; i++) {
            HikariDataSource pool = DedupeBench.pool(url, 1);
            pools.add(pool);
            Thread t = new Thread(() -> loop(pool), "bench-writer-" + i);
            threads.add(t);
            t.start();
        }
    }

    void measure(Phase p, Duration d) throws InterruptedException {
        phase(p);
        Thread.sleep(d.toMillis()); // a measurement window, not a wait for an outcome
    }

    void phase(Phase next) {
        Phase previous = phase;
        phase = next;
        if (previous != null) {
            var h = recorders.get(previous).getIntervalHistogram();
            results.put(
                    previous,
                    new double[] {h.getValueAtPercentile(99) / 1e6, h.getMaxValue() / 1e6, h.getTotalCount()});
        }
    }

    Map<Phase, double[]> p99s() {
        return results;
    }

    private void loop(HikariDataSource pool) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop) {
            long n = sequence.incrementAndGet();
            String key = random.nextDouble() >= hotShare ? "w-" + n : "h-" + (n / 64);
            Phase at = phase;
            long start = System.nanoTime();
            try (Connection c = pool.getConnection()) {
                boolean exists;
                try (PreparedStatement ps = c.prepareStatement(select)) {
                    ps.setString(1, key);
                    try (ResultSet rs = ps.executeQuery()) {
                        exists = rs.next();
                    }
                }
                if (!exists) {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + DedupeBench.TABLE
                            + " (open_id, local_identifier, created_at) VALUES (?, 'writer', ?)")) {
                        ps.setString(1, key);
                        ps.setTimestamp(2, Timestamp.from(Instant.now()));
                        ps.executeUpdate();
                    } catch (SQLException e) {
                        if (!UniqueViolation.test(e)) {
                            throw e;
                        }
                    }
                }
            } catch (SQLException e) {
                System.err.println("writer: " + e.getMessage());
            }
            if (at != null) {
                recorders.get(at).recordValue(System.nanoTime() - start);
            }
        }
    }

    @Override
    public void close() {
        stop = true;
        try {
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pools.forEach(HikariDataSource::close);
    }
}

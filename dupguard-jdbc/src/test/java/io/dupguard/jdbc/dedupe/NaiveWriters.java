package io.dupguard.jdbc.dedupe;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.UniqueViolation;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The naive service: each writer (its own pool, standing in for its own machine) checks whether
 * an account exists, then inserts it — the naive select-then-insert that made the duplicates. Half
 * the keys are fresh; the other half are "hot" keys that several writers try at about the same time
 * in varying letter case, so the naive path keeps creating duplicates until the index exists.
 * {@code hotShare} sets how many requests are such concurrent duplicates (the seed: about 3 %).
 */
final class NaiveWriters implements AutoCloseable {
    enum Phase {
        BEFORE,
        SCAN,
        APPLY,
        GUARD,
        AFTER
    }

    record Insert(long id, String key, Phase phase) {}

    private final List<HikariDataSource> pools = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final String select;
    private final String insert;
    private volatile Phase phase = Phase.BEFORE;
    private volatile boolean stop;
    private final AtomicLong sequence = new AtomicLong();
    private final Map<Phase, List<Long>> latencies = new EnumMap<>(Phase.class);
    final ConcurrentLinkedQueue<Insert> inserted = new ConcurrentLinkedQueue<>();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong refusedBeforeGuard = new AtomicLong();
    final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();

    private final double hotShare;

    NaiveWriters(String url, String table, String lookup, int writers, double hotShare) {
        this.hotShare = hotShare;
        this.select = "SELECT id FROM " + table + " WHERE " + lookup;
        this.insert = "INSERT INTO " + table + " (open_id, local_identifier, created_at) VALUES (?, 'writer', ?)";
        for (Phase p : Phase.values()) {
            latencies.put(p, Collections.synchronizedList(new ArrayList<>()));
        }
        for (int i = 0; i < writers; i++) {
            HikariDataSource pool = DedupeDb.pool(url, 1);
            pools.add(pool);
            Thread t = new Thread(() -> loop(pool), "naive-writer-" + i);
            threads.add(t);
        }
    }

    void start() {
        threads.forEach(Thread::start);
    }

    void phase(Phase p) {
        phase = p;
    }

    long completed(Phase p) {
        return latencies.get(p).size();
    }

    private void loop(HikariDataSource pool) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop) {
            long n = sequence.incrementAndGet();
            // A hot key is shared by the next few requests of all writers, which race on it.
            String key = random.nextDouble() >= hotShare ? "w-" + n : "h-" + (n / 64);
            if (key.startsWith("h-") && random.nextInt(3) == 0) {
                key = key.toUpperCase(Locale.ROOT);
            }
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
                    try (PreparedStatement ps = c.prepareStatement(insert, new String[] {"id"})) {
                        ps.setString(1, key);
                        ps.setTimestamp(2, Timestamp.from(Instant.now()));
                        ps.executeUpdate();
                        try (ResultSet rs = ps.getGeneratedKeys()) {
                            rs.next();
                            inserted.add(new Insert(rs.getLong(1), key, at));
                        }
                    } catch (SQLException e) {
                        if (!UniqueViolation.test(e)) {
                            throw e;
                        }
                        refused.incrementAndGet();
                        if (at != Phase.GUARD && at != Phase.AFTER) {
                            refusedBeforeGuard.incrementAndGet();
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                errors.add(e);
            }
            latencies.get(at).add(System.nanoTime() - start);
        }
    }

    /** p99 latency of the writers' select-then-insert in a phase, in milliseconds. */
    double p99Millis(Phase p) {
        List<Long> copy;
        synchronized (latencies.get(p)) {
            copy = new ArrayList<>(latencies.get(p));
        }
        if (copy.isEmpty()) {
            return Double.NaN;
        }
        Collections.sort(copy);
        return copy.get((int) Math.min(copy.size() - 1, Math.ceil(copy.size() * 0.99) - 1)) / 1e6;
    }

    double maxMillis(Phase p) {
        synchronized (latencies.get(p)) {
            return latencies.get(p).stream().mapToLong(Long::longValue).max().orElse(0) / 1e6;
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        for (Thread t : threads) {
            t.join();
        }
        pools.forEach(HikariDataSource::close);
    }
}

package io.dupguard.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.bench.harness.Cli;
import io.dupguard.bench.harness.CommonOptions;
import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.bench.harness.Rounds;
import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.RetryConfig;
import io.dupguard.retry.RetryLog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The retry log against db-scheduler 16.7.1 (one-time tasks) and a hand-written SKIP LOCKED poller,
 * side by side on the same database with the same pool size and 16 workers each:
 *
 * <ol>
 *   <li>executions per second draining {@code --tasks} due tasks, with a no-op handler and with a
 *       handler that writes one row (median of {@code --rounds}, implementations interleaved);
 *   <li>enqueue-to-start latency (p50/p99) of tasks enqueued by another client (its own pool, as
 *       another process would) at {@code --rate} per second, every implementation polling every
 *       {@code --poll};
 *   <li>the claim of 32 tasks with {@code --pending} due rows in the table (dupguard and the poller;
 *       db-scheduler has no separate claim call).
 * </ol>
 *
 * <p>Run: {@code scripts/bench-retries [--dbs postgresql,mariadb] [--tasks 10000] [--rounds 3]}.
 * Prints a Markdown report for docs/benchmarks.md.
 */
public final class RetryBench {
    static final int WORKERS = 16;
    static final int POOL = 20;

    /** Command-line options of {@code scripts/bench-retries}. */
    @Command(
            name = "scripts/bench-retries",
            mixinStandardHelpOptions = true,
            description = "Benchmarks the retry log against db-scheduler and a hand-written SKIP LOCKED poller.")
    static final class Options {
        @Option(names = "--dbs", paramLabel = "LIST", split = ",", description = "postgresql, mariadb (default both)")
        List<String> dbs = List.of("postgresql", "mariadb");

        @Option(
                names = "--tasks",
                paramLabel = "N",
                converter = CommonOptions.AtLeastOne.class,
                description = "due tasks drained per throughput round (default ${DEFAULT-VALUE})")
        int tasks = 10_000;

        @Option(
                names = "--rounds",
                paramLabel = "N",
                converter = CommonOptions.AtLeastOne.class,
                description = "throughput rounds; the median is reported (default ${DEFAULT-VALUE})")
        int rounds = 3;

        @Option(
                names = "--rate",
                paramLabel = "N",
                converter = CommonOptions.AtLeastOne.class,
                description = "tasks per second enqueued by the other client (default ${DEFAULT-VALUE})")
        int rate = 200;

        @Option(
                names = "--latency-tasks",
                paramLabel = "N",
                converter = CommonOptions.AtLeastOne.class,
                description = "tasks of the latency run (default ${DEFAULT-VALUE})")
        int latencyTasks = 1_000;

        @Option(
                names = "--poll",
                paramLabel = "MS",
                converter = CommonOptions.AtLeastOne.class,
                description = "poll interval of every implementation, ms (default ${DEFAULT-VALUE})")
        int poll = 500;

        @Option(
                names = "--pending",
                paramLabel = "N",
                converter = CommonOptions.AtLeastOne.class,
                description = "due rows in the table for the claim measurement (default ${DEFAULT-VALUE})")
        int pending = 1_000_000;

        @Option(
                names = "--pg-url",
                paramLabel = "URL",
                converter = CommonOptions.NonBlank.class,
                description = "default: -Ddupguard.pg.url or the local test database")
        String pgUrl = System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

        @Option(
                names = "--mariadb-url",
                paramLabel = "URL",
                converter = CommonOptions.NonBlank.class,
                description = "default: -Ddupguard.mariadb.url or the local test database")
        String mariadbUrl = System.getProperty("dupguard.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");

        @Override
        public String toString() {
            return "dbs=" + String.join(",", dbs) + ", tasks=" + tasks + ", rounds=" + rounds + ", rate=" + rate
                    + ", latency-tasks=" + latencyTasks + ", poll=" + poll + " ms, pending=" + pending;
        }
    }

    private final Options o;

    private RetryBench(Options o) {
        this.o = o;
    }

    public static void main(String[] args) throws Exception {
        System.exit(Cli.run(new Options(), args, o -> {
            new RetryBench(o).run();
            return 0;
        }));
    }

    void run() throws Exception {
        StringBuilder out = new StringBuilder();
        out.append("Machine: ");
        MachineInfo.collect()
                .forEach((k, v) -> out.append(k).append(": ").append(v).append("; "));
        out.append("\n\nOptions: ").append(o).append("\n");
        for (String db : o.dbs) {
            out.append(runDb(db.trim()));
            System.out.println(out);
        }
        out.append("\nLoad average at the end: ")
                .append(MachineInfo.loadAverage())
                .append('\n');
        System.out.println("\n===== REPORT =====\n" + out);
    }

    String runDb(String db) throws Exception {
        boolean pg = db.startsWith("p");
        String url = pg ? o.pgUrl : o.mariadbUrl;
        Duration poll = Duration.ofMillis(o.poll);
        List<Impl> impls = List.of(new Dupguard(), new DbScheduler(pg), new Poller(pg));
        StringBuilder md = new StringBuilder();
        md.append("\n#### ").append(pg ? "PostgreSQL" : "MariaDB").append("\n\n");
        md.append("| tasks/s (median of ").append(o.rounds).append(") | ");
        impls.forEach(i -> md.append(i.name()).append(" | "));
        md.append("dupguard / db-scheduler | dupguard / poller |\n|---|---|---|---|---|---|\n");
        try (HikariDataSource ds = pool(url, POOL, "workers");
                HikariDataSource producer = pool(url, 4, "producer")) {
            for (boolean write : new boolean[] {false, true}) {
                double[][] rates = new double[impls.size()][o.rounds];
                for (int r = 0; r < o.rounds; r++) {
                    for (int i = 0; i < impls.size(); i++) {
                        rates[i][r] = throughput(impls.get(i), ds, pg, write, poll);
                        System.err.printf(
                                Locale.ROOT,
                                "%s %s write=%s round %d: %.0f/s (load %s)%n",
                                db,
                                impls.get(i).name(),
                                write,
                                r,
                                rates[i][r],
                                MachineInfo.loadAverage());
                    }
                }
                double[] med = Arrays.stream(rates).mapToDouble(Rounds::median).toArray();
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %.0f | %.0f | %.0f | %.2f× | %.2f× |%n",
                        write ? "one-row write" : "no-op",
                        med[0],
                        med[1],
                        med[2],
                        med[0] / med[1],
                        med[0] / med[2]));
            }
            md.append("\n| enqueue-to-start, other client, ")
                    .append(o.rate)
                    .append("/s, poll ")
                    .append(poll.toMillis())
                    .append(" ms | p50 ms | p99 ms |\n|---|---|---|\n");
            for (Impl impl : impls) {
                Histogram h = latency(impl, ds, producer, pg, poll);
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %.1f | %.1f |%n",
                        impl.name(),
                        h.getValueAtPercentile(50) / 1000.0,
                        h.getValueAtPercentile(99) / 1000.0));
            }
            md.append("\n| claim of 32 with ")
                    .append(o.pending)
                    .append(" due rows | p50 ms | p99 ms |\n|---|---|---|\n");
            for (Impl impl : List.of(impls.get(0), impls.get(2))) {
                Histogram h = claimTime(impl, ds, pg);
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %.2f | %.2f |%n",
                        impl.name(),
                        h.getValueAtPercentile(50) / 1000.0,
                        h.getValueAtPercentile(99) / 1000.0));
            }
        }
        return md.toString();
    }

    static HikariDataSource pool(String url, int size, String name) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setMaximumPoolSize(size);
        c.setPoolName("bench-" + name);
        return new HikariDataSource(c);
    }

    double throughput(Impl impl, DataSource ds, boolean pg, boolean write, Duration poll) throws Exception {
        int n = o.tasks;
        impl.reset(ds, pg);
        resetEffects(ds);
        impl.enqueueBulk(ds, n);
        AtomicLong done = new AtomicLong();
        CountDownLatch all = new CountDownLatch(1);
        Body body = enqueued -> {
            if (write) {
                try (Connection c = ds.getConnection();
                        PreparedStatement ps = c.prepareStatement("INSERT INTO bench_retry_effects (v) VALUES (?)")) {
                    ps.setLong(1, enqueued);
                    ps.executeUpdate();
                }
            }
            if (done.incrementAndGet() == n) {
                all.countDown();
            }
        };
        long t0 = System.nanoTime();
        impl.start(ds, pg, poll, body);
        boolean finished = all.await(10, TimeUnit.MINUTES);
        long t1 = System.nanoTime();
        impl.stop();
        if (!finished) {
            throw new IllegalStateException(impl.name() + " did not finish: " + done.get() + " of " + n);
        }
        return n / ((t1 - t0) / 1e9);
    }

    Histogram latency(Impl impl, DataSource ds, DataSource producer, boolean pg, Duration poll) throws Exception {
        int n = o.latencyTasks;
        impl.reset(ds, pg);
        Histogram h = new Histogram(TimeUnit.MINUTES.toMicros(5), 3);
        CountDownLatch all = new CountDownLatch(n);
        impl.start(ds, pg, poll, enqueued -> {
            synchronized (h) {
                h.recordValue(Math.max(0, (System.nanoTime() - enqueued) / 1000));
            }
            all.countDown();
        });
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // let the workers settle into their poll cycle
        impl.startProducer(producer, pg);
        long gap = TimeUnit.SECONDS.toNanos(1) / o.rate;
        long next = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            impl.enqueueOne(i, System.nanoTime());
            next += gap;
        }
        boolean finished = all.await(5, TimeUnit.MINUTES);
        impl.stop();
        if (!finished) {
            throw new IllegalStateException(impl.name() + " latency run did not finish");
        }
        System.err.printf(
                Locale.ROOT,
                "latency %s: p50 %.1f ms p99 %.1f ms%n",
                impl.name(),
                h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0);
        return h;
    }

    Histogram claimTime(Impl impl, DataSource ds, boolean pg) throws Exception {
        impl.reset(ds, pg);
        impl.fillPending(ds, pg, o.pending);
        Histogram h = new Histogram(TimeUnit.MINUTES.toMicros(1), 3);
        for (int i = 0; i < 300; i++) {
            long t0 = System.nanoTime();
            int got = impl.claim32(ds);
            if (i >= 50) { // the first claims warm caches and statements
                h.recordValue((System.nanoTime() - t0) / 1000);
            }
            if (got != 32) {
                throw new IllegalStateException(impl.name() + " claimed " + got + " of 32");
            }
        }
        System.err.printf(Locale.ROOT, "claim %s: p50 %.2f ms%n", impl.name(), h.getValueAtPercentile(50) / 1000.0);
        return h;
    }

    static void resetEffects(DataSource ds) throws SQLException {
        exec(ds, "DROP TABLE IF EXISTS bench_retry_effects", "CREATE TABLE bench_retry_effects (v BIGINT NOT NULL)");
    }

    static void exec(DataSource ds, String... sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            for (String s : sql) {
                st.execute(s);
            }
        }
    }

    @FunctionalInterface
    interface Body {
        void run(long enqueuedNanos) throws Exception;
    }

    /** One implementation under test. */
    interface Impl {
        String name();

        void reset(DataSource ds, boolean pg) throws Exception;

        void enqueueBulk(DataSource ds, int n) throws Exception;

        void start(DataSource ds, boolean pg, Duration poll, Body body) throws Exception;

        void startProducer(DataSource producer, boolean pg) throws Exception;

        void enqueueOne(int i, long nanos) throws Exception;

        void stop() throws Exception;

        /** Fills the table with {@code n} due rows without running anything. */
        void fillPending(DataSource ds, boolean pg, int n) throws Exception;

        int claim32(DataSource ds) throws Exception;
    }

    /** The retry log: {@code RetryLog} on {@code JdbcRetryStore}, 16 workers fed by 4 pollers claiming 32 at a time. */
    static final class Dupguard implements Impl {
        static final String TABLE = "bench_retry_tasks";
        JdbcRetryStore store;
        JdbcRetryStore producer;
        RetryLog log;

        @Override
        public String name() {
            return "dupguard retry log";
        }

        @Override
        public void reset(DataSource ds, boolean pg) throws Exception {
            exec(ds, "DROP TABLE IF EXISTS " + TABLE);
            store = JdbcRetryStore.builder(ds)
                    .tableName(TABLE)
                    .createSchemaIfMissing(true)
                    .build();
            store.stats();
        }

        @Override
        public void enqueueBulk(DataSource ds, int n) throws Exception {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                for (int i = 0; i < n; i++) {
                    store.enqueue(c, NewTask.of("bench", "0", null));
                    if (i % 1000 == 999) {
                        c.commit();
                    }
                }
                c.commit();
                c.setAutoCommit(true);
            }
        }

        @Override
        public void start(DataSource ds, boolean pg, Duration poll, Body body) {
            log = RetryLog.builder(store)
                    .handler("bench", t -> body.run(Long.parseLong(t.payloadText())))
                    .config(RetryConfig.custom()
                            .workers(WORKERS)
                            .pollers(4)
                            .batchSize(32)
                            .pollInterval(poll)
                            .build())
                    .build()
                    .start();
        }

        @Override
        public void startProducer(DataSource producerPool, boolean pg) {
            producer = JdbcRetryStore.builder(producerPool).tableName(TABLE).build();
        }

        @Override
        public void enqueueOne(int i, long nanos) {
            producer.enqueue(NewTask.of("bench", Long.toString(nanos), null));
        }

        @Override
        public void stop() {
            log.close();
        }

        @Override
        public void fillPending(DataSource ds, boolean pg, int n) throws Exception {
            String cols = "INSERT INTO " + TABLE
                    + " (task_type, task_key, state, runs, run_base, due_at, created_at, updated_at, payload) ";
            exec(
                    ds,
                    pg
                            ? cols
                                    + "SELECT 'bench', md5(g::text), 'P', 0, 0, now() - (g % 1000) * interval '1 ms', now(),"
                                    + " now(), '\\x'::bytea FROM generate_series(1, " + n + ") g"
                            : cols
                                    + "SELECT 'bench', md5(seq), 'P', 0, 0, UTC_TIMESTAMP(6) - INTERVAL (seq % 1000) SECOND,"
                                    + " UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), x'' FROM seq_1_to_" + n);
            exec(ds, pg ? "ANALYZE " + TABLE : "ANALYZE TABLE " + TABLE);
        }

        @Override
        public int claim32(DataSource ds) {
            return store.claim("bench", 32, Duration.ofMinutes(10)).size();
        }
    }

    /** db-scheduler 16.7.1 one-time tasks; lock-and-fetch (SKIP LOCKED) where it supports it (PostgreSQL). */
    static final class DbScheduler implements Impl {
        static final String TABLE = "bench_scheduled_tasks";
        final boolean pg;
        final OneTimeTask<Void> task;
        volatile Body body;
        Scheduler scheduler;
        SchedulerClient producer;

        DbScheduler(boolean pg) {
            this.pg = pg;
            this.task = Tasks.oneTime("bench", Void.class).execute((inst, ctx) -> {
                String id = inst.getId();
                try {
                    body.run(Long.parseLong(id.substring(id.indexOf(':') + 1)));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }

        @Override
        public String name() {
            return "db-scheduler 16.7.1";
        }

        @Override
        public void reset(DataSource ds, boolean pg) throws Exception {
            exec(
                    ds,
                    "DROP TABLE IF EXISTS " + TABLE,
                    pg
                            ? "CREATE TABLE " + TABLE
                                    + " (task_name text NOT NULL, task_instance text NOT NULL, task_data bytea,"
                                    + " execution_time timestamptz NOT NULL, picked BOOLEAN NOT NULL, picked_by text,"
                                    + " last_success timestamptz, last_failure timestamptz, consecutive_failures INT,"
                                    + " last_heartbeat timestamptz, version BIGINT NOT NULL, priority SMALLINT,"
                                    + " PRIMARY KEY (task_name, task_instance))"
                            : "CREATE TABLE " + TABLE
                                    + " (task_name varchar(100) NOT NULL, task_instance varchar(100) NOT NULL,"
                                    + " task_data blob, execution_time timestamp(6) NOT NULL, picked BOOLEAN NOT NULL,"
                                    + " picked_by varchar(50), last_success timestamp(6) NULL, last_failure timestamp(6) NULL,"
                                    + " consecutive_failures INT, last_heartbeat timestamp(6) NULL, version BIGINT NOT NULL,"
                                    + " priority SMALLINT, PRIMARY KEY (task_name, task_instance),"
                                    + " INDEX bench_st_execution_time_idx (execution_time),"
                                    + " INDEX bench_st_last_heartbeat_idx (last_heartbeat),"
                                    + " INDEX bench_st_priority_execution_time_idx (priority desc, execution_time asc))");
            if (pg) {
                exec(
                        ds,
                        "CREATE INDEX bench_st_execution_time_idx ON " + TABLE + " (execution_time)",
                        "CREATE INDEX bench_st_last_heartbeat_idx ON " + TABLE + " (last_heartbeat)",
                        "CREATE INDEX bench_st_priority_execution_time_idx ON " + TABLE
                                + " (priority desc, execution_time asc)");
            }
        }

        @Override
        public void enqueueBulk(DataSource ds, int n) {
            SchedulerClient client =
                    SchedulerClient.Builder.create(ds, task).tableName(TABLE).build();
            List<TaskInstance<?>> batch = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                batch.add(task.instance(i + ":0"));
                if (batch.size() == 1000 || i == n - 1) {
                    client.scheduleBatch(batch, Instant.now());
                    batch.clear();
                }
            }
        }

        @Override
        public void start(DataSource ds, boolean pg, Duration poll, Body body) {
            this.body = body;
            SchedulerBuilder b = Scheduler.create(ds, task)
                    .threads(WORKERS)
                    .pollingInterval(poll)
                    .tableName(TABLE);
            if (pg) {
                b.pollUsingLockAndFetch(4.0, 20.0); // the README's high-throughput setting
            }
            scheduler = b.build();
            scheduler.start();
        }

        @Override
        public void startProducer(DataSource producerPool, boolean pg) {
            producer = SchedulerClient.Builder.create(producerPool, task)
                    .tableName(TABLE)
                    .build();
        }

        @Override
        public void enqueueOne(int i, long nanos) {
            producer.scheduleIfNotExists(task.instance("l" + i + ":" + nanos), Instant.now());
        }

        @Override
        public void stop() {
            scheduler.stop();
        }

        @Override
        public void fillPending(DataSource ds, boolean pg, int n) {
            throw new UnsupportedOperationException("db-scheduler has no separate claim call");
        }

        @Override
        public int claim32(DataSource ds) {
            throw new UnsupportedOperationException("db-scheduler has no separate claim call");
        }
    }

    /**
     * The ceiling: 16 threads, each claiming up to 8 due rows with one SKIP LOCKED statement (a lease
     * in the due time, so a crashed worker's rows come back), running them, and deleting them with
     * one statement per batch.
     */
    static final class Poller implements Impl {
        static final String TABLE = "bench_poller";
        static final int BATCH = 8;
        final boolean pg;
        final List<Thread> threads = new ArrayList<>();
        volatile boolean running;
        DataSource producerPool;

        Poller(boolean pg) {
            this.pg = pg;
        }

        @Override
        public String name() {
            return "hand-written SKIP LOCKED poller";
        }

        @Override
        public void reset(DataSource ds, boolean pg) throws Exception {
            exec(
                    ds,
                    "DROP TABLE IF EXISTS " + TABLE,
                    pg
                            ? "CREATE TABLE " + TABLE + " (id BIGSERIAL PRIMARY KEY, payload BIGINT NOT NULL,"
                                    + " due_at TIMESTAMPTZ NOT NULL DEFAULT now())"
                            : "CREATE TABLE " + TABLE
                                    + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, payload BIGINT NOT NULL,"
                                    + " due_at DATETIME(6) NOT NULL DEFAULT UTC_TIMESTAMP(6))",
                    "CREATE INDEX " + TABLE + "_due ON " + TABLE + " (due_at)");
        }

        @Override
        public void enqueueBulk(DataSource ds, int n) throws Exception {
            try (Connection c = ds.getConnection();
                    PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (payload) VALUES (0)")) {
                c.setAutoCommit(false);
                for (int i = 0; i < n; i++) {
                    ps.executeUpdate();
                    if (i % 1000 == 999) {
                        c.commit();
                    }
                }
                c.commit();
                c.setAutoCommit(true);
            }
        }

        String lease() {
            return pg ? "now() + interval '5 minutes'" : "UTC_TIMESTAMP(6) + INTERVAL 5 MINUTE";
        }

        String now() {
            return pg ? "now()" : "UTC_TIMESTAMP(6)";
        }

        /** Claims up to {@code max} rows; returns (id, payload) pairs. */
        List<long[]> claim(Connection c, int max) throws SQLException {
            List<long[]> out = new ArrayList<>();
            if (pg) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET due_at = " + lease()
                        + " WHERE id IN (SELECT id FROM " + TABLE + " WHERE due_at <= now() ORDER BY due_at LIMIT ?"
                        + " FOR UPDATE SKIP LOCKED) RETURNING id, payload")) {
                    ps.setInt(1, max);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            out.add(new long[] {rs.getLong(1), rs.getLong(2)});
                        }
                    }
                }
                return out;
            }
            // READ COMMITTED for this transaction: REPEATABLE READ's gap locks on the scanned range
            // deadlock the claims against concurrent inserts.
            try (Statement st = c.createStatement()) {
                st.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
            }
            c.setAutoCommit(false);
            try {
                try (PreparedStatement ps = c.prepareStatement("SELECT id, payload FROM " + TABLE
                        + " WHERE due_at <= UTC_TIMESTAMP(6) ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED")) {
                    ps.setInt(1, max);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            out.add(new long[] {rs.getLong(1), rs.getLong(2)});
                        }
                    }
                }
                if (!out.isEmpty()) {
                    try (Statement st = c.createStatement()) {
                        st.executeUpdate(
                                "UPDATE " + TABLE + " SET due_at = " + lease() + " WHERE id IN (" + ids(out) + ")");
                    }
                }
                c.commit();
            } finally {
                c.setAutoCommit(true);
            }
            return out;
        }

        static String ids(List<long[]> rows) {
            StringBuilder sb = new StringBuilder();
            for (long[] r : rows) {
                sb.append(sb.length() == 0 ? "" : ",").append(r[0]);
            }
            return sb.toString();
        }

        @Override
        public void start(DataSource ds, boolean pg, Duration poll, Body body) {
            running = true;
            threads.clear();
            for (int t = 0; t < WORKERS; t++) {
                Thread th = new Thread(
                        () -> {
                            while (running) {
                                try {
                                    List<long[]> rows;
                                    try (Connection c = ds.getConnection()) {
                                        rows = claim(c, BATCH);
                                    }
                                    if (rows.isEmpty()) {
                                        LockSupport.parkNanos(poll.toNanos());
                                        continue;
                                    }
                                    for (long[] r : rows) {
                                        body.run(r[1]);
                                    }
                                    try (Connection c = ds.getConnection();
                                            Statement st = c.createStatement()) {
                                        st.executeUpdate("DELETE FROM " + TABLE + " WHERE id IN (" + ids(rows) + ")");
                                    }
                                } catch (Exception e) {
                                    System.err.println("poller: " + e);
                                    LockSupport.parkNanos(poll.toNanos());
                                }
                            }
                        },
                        "poller-" + t);
                th.start();
                threads.add(th);
            }
        }

        @Override
        public void startProducer(DataSource producerPool, boolean pg) {
            this.producerPool = producerPool;
        }

        @Override
        public void enqueueOne(int i, long nanos) throws SQLException {
            try (Connection c = producerPool.getConnection();
                    PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (payload) VALUES (?)")) {
                ps.setLong(1, nanos);
                ps.executeUpdate();
            }
        }

        @Override
        public void stop() throws InterruptedException {
            running = false;
            for (Thread t : threads) {
                t.interrupt();
                t.join();
            }
        }

        @Override
        public void fillPending(DataSource ds, boolean pg, int n) throws Exception {
            exec(
                    ds,
                    pg
                            ? "INSERT INTO " + TABLE
                                    + " (payload, due_at) SELECT 0, now() - (g % 1000) * interval '1 ms'"
                                    + " FROM generate_series(1, " + n + ") g"
                            : "INSERT INTO " + TABLE
                                    + " (payload, due_at) SELECT 0, UTC_TIMESTAMP(6) - INTERVAL (seq % 1000)"
                                    + " SECOND FROM seq_1_to_" + n);
            exec(ds, pg ? "ANALYZE " + TABLE : "ANALYZE TABLE " + TABLE);
        }

        @Override
        public int claim32(DataSource ds) throws SQLException {
            try (Connection c = ds.getConnection()) {
                return claim(c, 32).size();
            }
        }
    }
}

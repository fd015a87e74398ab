package io.dupguard.bench.consumer;

import io.dupguard.bench.harness.Cli;
import io.dupguard.bench.harness.CommonOptions;
import io.dupguard.bench.harness.LoadOptions;
import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.bench.harness.Markdown;
import io.dupguard.bench.harness.Rounds;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Consumer throughput with deduplication (issue 26): Kafka {@link ConsumerRecord}s of a topic whose
 * producer re-sends ({@link Feed}: 30 % copies by default), fed from lists built before any timing
 * — not from a broker, which on 2 shared cores would be the bottleneck and measure itself — to
 * consumer threads, one per partition, that handle them poll by poll as a batch listener would. The
 * handler writes one effect row per message to PostgreSQL or MariaDB. The rows: no dedup (the
 * ceiling), a hand-written processed-messages table, dupguard per record and per batch in the
 * listener's transaction, the starter's batch dedup engine ({@link EngineRow}), Spring
 * Integration's idempotent receiver on {@code JdbcMetadataStore}, Camel's idempotent consumer on
 * {@code JdbcMessageIdRepository}, and dupguard in store mode on Redis (effects in PostgreSQL); at
 * several poll sizes. After every run each message's effect is checked
 * to be there exactly once. Run it with {@code scripts/bench-consumer}.
 */
public final class ConsumerBench {
    static final String NOTES_MARKER =
            "<!-- notes below this line are kept when scripts/bench-consumer rewrites the file -->";

    /** The databases the effects (and the SQL rows' records) go to. */
    enum Target {
        POSTGRESQL("PostgreSQL"),
        MARIADB("MariaDB");

        final String label;

        Target(String label) {
            this.label = label;
        }
    }

    /** Command-line options of {@code scripts/bench-consumer}. */
    @Command(
            name = "scripts/bench-consumer",
            mixinStandardHelpOptions = true,
            defaultValueProvider = Options.Defaults.class,
            description = "Consumer throughput with dedup: dupguard per record and per batch against a no-dedup"
                    + " ceiling, a hand-written processed table, Spring Integration and Camel.",
            footer = {"", "DURATION: 500ms, 3s, 1.5s, 1m, PT3S, or a plain number of seconds."})
    static final class Options extends LoadOptions {
        static final class Defaults extends CommonOptions.Defaults {
            Defaults() {
                super(Map.ofEntries(
                        Map.entry("--threads", "4"),
                        Map.entry("--prewarm", "500ms"),
                        Map.entry("--warmup", "500ms"),
                        Map.entry("--duration", "2s"),
                        Map.entry("--rounds", "3"),
                        Map.entry("--targets", "postgresql,mariadb"),
                        Map.entry("--batch-sizes", "1,100,500"),
                        Map.entry("--dup-rate", "0.3"),
                        Map.entry("--records", "200000"),
                        Map.entry("--redis", "true"),
                        Map.entry("--checkpoint", "true")));
            }
        }

        @Option(
                names = "--targets",
                paramLabel = "LIST",
                split = ",",
                description = "databases: postgresql, mariadb (default ${DEFAULT-VALUE})")
        List<Target> targets = new ArrayList<>();

        @Option(
                names = "--batch-sizes",
                paramLabel = "LIST",
                split = ",",
                description = "records per poll, 1 to 1000 (default ${DEFAULT-VALUE})")
        List<Integer> batchSizes = new ArrayList<>();

        @Option(
                names = "--dup-rate",
                paramLabel = "SHARE",
                description = "share of records that re-send an earlier message (default ${DEFAULT-VALUE})")
        double dupRate;

        @Option(
                names = "--records",
                paramLabel = "N",
                converter = CommonOptions.AtLeastOne.class,
                description = "records built per partition (thread); a run must not use them up"
                        + " (default ${DEFAULT-VALUE})")
        int records;

        @Option(
                names = "--redis",
                paramLabel = "BOOLEAN",
                arity = "1",
                description = "also the Redis store rows, effects in PostgreSQL (default ${DEFAULT-VALUE})")
        boolean redis;

        @Option(
                names = "--checkpoint",
                paramLabel = "BOOLEAN",
                arity = "1",
                description = "a PostgreSQL CHECKPOINT before every run, so that none pays for a timed one's"
                        + " full-page writes alone (default ${DEFAULT-VALUE})")
        boolean checkpoint;

        void check(CommandLine cl) {
            for (int b : batchSizes) {
                if (b < 1 || b > 1000) {
                    throw new CommandLine.ParameterException(cl, "--batch-sizes: " + b + " is not within 1..1000");
                }
            }
            if (dupRate < 0 || dupRate >= 1) {
                throw new CommandLine.ParameterException(cl, "--dup-rate: must be within [0, 1), was " + dupRate);
            }
        }
    }

    /** One measured run of one row at one poll size. */
    record Run(double recordsPerSecond, long records, String error) {}

    /** Every round of a row at a poll size, by row name. */
    static final class Results {
        final Map<String, Map<Integer, List<Run>>> runs = new LinkedHashMap<>();
        final Map<String, String> descriptions = new LinkedHashMap<>();

        void add(ConsumerRow row, int batch, Run run) {
            descriptions.putIfAbsent(row.name(), row.description());
            runs.computeIfAbsent(row.name(), n -> new LinkedHashMap<>())
                    .computeIfAbsent(batch, b -> new ArrayList<>())
                    .add(run);
        }

        double median(String row, int batch) {
            double[] r = rates(row, batch);
            return r.length == 0 ? Double.NaN : Rounds.median(r);
        }

        /**
         * {@code row} over {@code reference} at {@code batch}: the median of the rounds' ratios, each
         * round's run of {@code row} over the run of {@code reference} in the same round (a few
         * seconds apart), so a slow phase of the machine that spans a round weighs on both sides of
         * its ratio instead of on one side of a ratio of medians. NaN where either row did not run.
         */
        double ratio(String row, String reference, int batch) {
            return Rounds.medianRatio(rates(row, batch), rates(reference, batch));
        }

        private double[] rates(String row, int batch) {
            return runs.getOrDefault(row, Map.of()).getOrDefault(batch, List.of()).stream()
                    .mapToDouble(Run::recordsPerSecond)
                    .toArray();
        }
    }

    private ConsumerBench() {}

    public static void main(String[] args) throws Exception {
        String command = Cli.commandLine("scripts/bench-consumer", args);
        System.exit(Cli.run(new Options(), args, o -> run(o, command)));
    }

    static int run(Options o, String command) throws Exception {
        o.check(new CommandLine(o));
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Map<String, String> machine = MachineInfo.collect();
        Map<String, String> servers = new LinkedHashMap<>();
        List<Feed> feeds = new ArrayList<>();
        for (int p = 0; p < o.threads(); p++) {
            feeds.add(Feed.build(p, o.records, o.dupRate, 26));
        }
        Cli.log(String.format(
                Locale.ROOT, "%d partitions × %,d records, %.0f %% re-sent", o.threads(), o.records, o.dupRate * 100));
        Map<Target, Results> results = new LinkedHashMap<>();
        int errors = 0;
        for (Target target : o.targets) {
            String url = target == Target.POSTGRESQL ? o.pgUrl() : o.mariadbUrl();
            Results res = new Results();
            results.put(target, res);
            try (Database db = new Database(target.label, url, o.threads(), o.checkpoint);
                    RedisRows redis = o.redis && target == Target.POSTGRESQL ? new RedisRows(o.redisUrl()) : null) {
                servers.put(target.label, serverVersion(db));
                List<ConsumerRow> rows = new ArrayList<>();
                for (ConsumerRow r : SqlRows.of(db)) {
                    if (!r.dedups() || o.runs(r.name())) {
                        rows.add(r); // the ceiling always runs: every ratio needs it
                    }
                }
                if (redis != null) {
                    for (ConsumerRow r : redis.rows(db)) {
                        if (o.runs(r.name())) {
                            rows.add(r);
                        }
                    }
                    servers.put("Redis", "redis at " + o.redisUrl());
                }
                // Round 0 is an unmeasured pass over every row (JIT, pools, the servers' caches);
                // --prewarm 0 leaves it out.
                for (int round = o.prewarm().isZero() ? 1 : 0; round <= o.rounds(); round++) {
                    for (int batch : o.batchSizes) {
                        List<ConsumerRow> order = new ArrayList<>(rows);
                        if (round % 2 == 0) {
                            java.util.Collections.reverse(order);
                        }
                        for (ConsumerRow row : order) {
                            Duration window = round == 0 ? o.prewarm() : o.duration();
                            Run run = run(db, row, feeds, batch, o.warmup(), window);
                            if (run.error() != null) {
                                errors++;
                            }
                            if (round > 0) {
                                res.add(row, batch, run);
                            }
                            Cli.log(String.format(
                                    Locale.ROOT,
                                    "%-10s round %d  batch %3d  %-40s %10s records/s%s",
                                    target.label,
                                    round,
                                    batch,
                                    row.name(),
                                    Markdown.ops(run.recordsPerSecond()),
                                    run.error() == null ? "" : "  ERROR " + run.error()));
                        }
                    }
                }
            }
        }
        machine.put("Load average 1/5/15 min at end", MachineInfo.loadAverage());
        String md = ConsumerReport.render(
                o, command, started, Duration.ofNanos(System.nanoTime() - t0), machine, servers, results);
        System.out.println();
        System.out.println(md);
        Path out = o.out();
        if (out != null) {
            Markdown.write(out, md, NOTES_MARKER);
            Cli.log("wrote " + out.toAbsolutePath());
        }
        if (errors > 0) {
            Cli.log(errors + " run(s) failed or broke exactly-once: see ERROR above");
        }
        return errors == 0 ? 0 : 1;
    }

    /** Records per second of one thread, from the times its polls ended (see {@link #run}). */
    static double rate(List<Long> ends, int batch, long start, long from, long to) {
        List<Long> inWindow = ends.stream().filter(t -> t >= from && t <= to).toList();
        if (inWindow.size() >= 2) {
            return batch * (inWindow.size() - 1) / ((inWindow.get(inWindow.size() - 1) - inWindow.get(0)) / 1e9);
        }
        return ends.isEmpty() ? 0 : batch * ends.size() / ((ends.get(ends.size() - 1) - start) / 1e9);
    }

    private static String serverVersion(Database db) throws SQLException {
        try (Connection c = db.admin.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT version()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * One run: every partition's thread consumes its feed poll by poll from the start, {@code
     * warmup} unmeasured, then {@code window} measured, then the effects are checked: each message
     * consumed has exactly one effect row (the ceiling: one per record). A thread's rate is the
     * records of its polls that ended within the window after the first, over the time from that
     * first end to the last one (a whole number of polls over the time they took); a thread that
     * ended fewer than two polls in the window (long polls) counts every poll it ended since the
     * run started. The run's rate is the sum of its threads'.
     */
    static Run run(Database db, ConsumerRow row, List<Feed> feeds, int batch, Duration warmup, Duration window)
            throws Exception {
        db.truncate(Database.EFFECT_TABLE);
        row.reset();
        int n = feeds.size();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> error = new AtomicReference<>();
        List<List<Long>> ends = new ArrayList<>();
        int[] consumed = new int[n];
        boolean[] exhausted = new boolean[n];
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int p = 0; p < n; p++) {
            int partition = p;
            List<Long> polls = new ArrayList<>();
            ends.add(polls);
            Thread t = new Thread(
                    () -> {
                        List<ConsumerRecord<String, String>> records = feeds.get(partition).records;
                        int i = 0;
                        try {
                            while (!stop.get()) {
                                if (i + batch > records.size()) {
                                    exhausted[partition] = true;
                                    break;
                                }
                                row.consume(records.subList(i, i + batch));
                                i += batch;
                                polls.add(System.nanoTime());
                            }
                        } catch (Exception | Error e) {
                            error.compareAndSet(null, e.toString());
                        } finally {
                            consumed[partition] = i;
                        }
                    },
                    "consumer-" + p);
            t.start();
            threads.add(t);
        }
        Thread.sleep(warmup.toMillis());
        long from = System.nanoTime();
        Thread.sleep(window.toMillis());
        long to = System.nanoTime();
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        double rate = 0;
        long records = 0;
        long distinct = 0;
        for (int p = 0; p < n; p++) {
            rate += rate(ends.get(p), batch, start, from, to);
            records += consumed[p];
            distinct += feeds.get(p).distinctIds(consumed[p]);
            if (exhausted[p]) {
                error.compareAndSet(null, "partition " + p + " ran out of records: raise --records");
            }
        }
        Database.Effects effects = db.effects();
        long expectedRows = row.dedups() ? distinct : records;
        long expectedIds = distinct;
        if (effects.rows() != expectedRows || effects.ids() != expectedIds) {
            error.compareAndSet(
                    null,
                    String.format(
                            Locale.ROOT,
                            "exactly-once check: %d effect rows for %d ids, expected %d rows for %d ids"
                                    + " (%d records consumed)",
                            effects.rows(),
                            effects.ids(),
                            expectedRows,
                            expectedIds,
                            records));
        }
        return new Run(rate, records, error.get());
    }
}

package io.dupguard.bench.lock;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Command-line options of {@link LockBench}: {@code --name value} or {@code --name=value}. A bad
 * option or value throws {@link IllegalArgumentException} with a message meant for the user.
 */
record LockBenchOptions(
        int threads,
        Duration prewarm,
        Duration warmup,
        Duration duration,
        int rounds,
        List<Target> targets,
        Path out,
        String pgUrl,
        String mariadbUrl,
        String redisUrl,
        int poolSize,
        int auditCycles,
        Duration auditContended,
        List<String> rows,
        boolean help) {

    /** The stores, in the order they run. */
    enum Target {
        REDIS("redis"),
        POSTGRESQL("postgresql"),
        MARIADB("mariadb"),
        ZOOKEEPER("zookeeper");

        final String id;

        Target(String id) {
            this.id = id;
        }

        static Target named(String name) {
            return switch (name.trim().toLowerCase(Locale.ROOT)) {
                case "redis" -> REDIS;
                case "postgresql", "postgres", "pg" -> POSTGRESQL;
                case "mariadb", "mysql" -> MARIADB;
                case "zookeeper", "zk" -> ZOOKEEPER;
                default ->
                    throw new IllegalArgumentException(
                            "unknown target '" + name + "'; known: redis, postgresql, mariadb, zookeeper, all");
            };
        }
    }

    static final String DEFAULT_PG_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    static final String DEFAULT_MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
    static final String DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

    static final String USAGE =
            """
            Usage: scripts/bench-locks [options]

              --threads N          client threads (default 16)
              --prewarm DURATION   one unmeasured run of every row and mode before round 1 (default 3s)
              --warmup DURATION    warmup before each measured run (default 1s)
              --duration DURATION  measured time of each run (default 5s)
              --rounds N           rounds per store, order alternating; best round kept (default 2)
              --targets LIST       comma-separated: redis,postgresql,mariadb,zookeeper or all (default all)
              --out FILE           Markdown report to write (default docs/benchmarks-locks.md; '-' for none)
              --pg-url URL         default jdbc:postgresql://127.0.0.1:5432/test?user=postgres
              --mariadb-url URL    default jdbc:mariadb://127.0.0.1:3306/test?user=root
              --redis-url URL      default redis://127.0.0.1:6379
              --pool-size N        HikariCP pool size per SQL row (default 16)
              --audit-cycles N     lock cycles of the single-threaded audit per row (default 200; 0: no audit)
              --audit-contended D  length of the contended audit per row (default 1s)
              --rows LIST          only the rows whose name starts with one of these (comma-separated,
                                   case-insensitive), e.g. "dupguard,redisson"
              --help               this text

            DURATION: 500ms, 3s, 1m, or a plain number of seconds.
            ZooKeeper runs in-process (Curator's TestingServer); the other servers must be up.
            """;

    static LockBenchOptions defaults() {
        return new LockBenchOptions(
                16,
                Duration.ofSeconds(3),
                Duration.ofSeconds(1),
                Duration.ofSeconds(5),
                2,
                List.of(Target.values()),
                Path.of("docs/benchmarks-locks.md"),
                DEFAULT_PG_URL,
                DEFAULT_MARIADB_URL,
                DEFAULT_REDIS_URL,
                16,
                200,
                Duration.ofSeconds(1),
                List.of(),
                false);
    }

    static LockBenchOptions parse(String... args) {
        LockBenchOptions d = defaults();
        int threads = d.threads;
        Duration prewarm = d.prewarm;
        Duration warmup = d.warmup;
        Duration duration = d.duration;
        int rounds = d.rounds;
        List<Target> targets = d.targets;
        Path out = d.out;
        String pgUrl = d.pgUrl;
        String mariadbUrl = d.mariadbUrl;
        String redisUrl = d.redisUrl;
        int poolSize = d.poolSize;
        int auditCycles = d.auditCycles;
        Duration auditContended = d.auditContended;
        List<String> rows = d.rows;
        boolean help = false;

        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + arg + "' (options start with --)");
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (name.equals("help")) {
                if (value != null) {
                    throw new IllegalArgumentException("--help takes no value");
                }
                help = true;
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("--" + name + " needs a value");
                }
                value = args[++i];
            }
            switch (name) {
                case "threads" -> threads = intAtLeast(name, value, 1);
                case "prewarm" -> prewarm = duration(name, value, true);
                case "warmup" -> warmup = duration(name, value, true);
                case "duration" -> duration = duration(name, value, false);
                case "rounds" -> rounds = intAtLeast(name, value, 1);
                case "targets" -> targets = targets(value);
                case "out" -> out = value.equals("-") ? null : Path.of(value);
                case "pg-url" -> pgUrl = url(name, value);
                case "mariadb-url" -> mariadbUrl = url(name, value);
                case "redis-url" -> redisUrl = url(name, value);
                case "pool-size" -> poolSize = intAtLeast(name, value, 1);
                case "audit-cycles" -> auditCycles = intAtLeast(name, value, 0);
                case "audit-contended" -> auditContended = duration(name, value, false);
                case "rows" -> rows = rows(value);
                default -> throw new IllegalArgumentException("unknown option --" + name + " (see --help)");
            }
        }
        return new LockBenchOptions(
                threads,
                prewarm,
                warmup,
                duration,
                rounds,
                targets,
                out,
                pgUrl,
                mariadbUrl,
                redisUrl,
                poolSize,
                auditCycles,
                auditContended,
                rows,
                help);
    }

    static String formatDuration(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
    }

    /** Whether a row of this name is to run. */
    boolean runs(String rowName) {
        String n = rowName.toLowerCase(Locale.ROOT);
        return rows.isEmpty() || rows.stream().anyMatch(n::startsWith);
    }

    private static int intAtLeast(String name, String value, int min) {
        int n;
        try {
            n = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " needs a whole number, was '" + value + "'", e);
        }
        if (n < min) {
            throw new IllegalArgumentException("--" + name + " must be at least " + min + ", was " + n);
        }
        return n;
    }

    static Duration duration(String name, String value, boolean zeroAllowed) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        Duration d;
        try {
            if (v.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            } else if (v.endsWith("s")) {
                d = Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
            } else if (v.endsWith("m")) {
                d = Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 60_000));
            } else {
                d = Duration.ofMillis(Math.round(Double.parseDouble(v) * 1000));
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "--" + name + " needs a duration such as 500ms, 3s or 1m, was '" + value + "'", e);
        }
        if (d.isNegative() || (!zeroAllowed && d.isZero())) {
            throw new IllegalArgumentException(
                    "--" + name + " must be " + (zeroAllowed ? "zero or more" : "positive") + ", was '" + value + "'");
        }
        return d;
    }

    private static List<Target> targets(String value) {
        Set<Target> chosen = new LinkedHashSet<>();
        for (String part : value.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            if (part.trim().equalsIgnoreCase("all")) {
                chosen.addAll(List.of(Target.values()));
            } else {
                chosen.add(Target.named(part));
            }
        }
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException("--targets needs at least one target");
        }
        List<Target> ordered = new ArrayList<>();
        for (Target t : Target.values()) {
            if (chosen.contains(t)) {
                ordered.add(t);
            }
        }
        return List.copyOf(ordered);
    }

    private static List<String> rows(String value) {
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            if (!part.isBlank()) {
                out.add(part.trim().toLowerCase(Locale.ROOT));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--rows needs at least one row name");
        }
        return List.copyOf(out);
    }

    private static String url(String name, String value) {
        if (value.isBlank()) {
            throw new IllegalArgumentException("--" + name + " must not be empty");
        }
        return value.trim();
    }
}

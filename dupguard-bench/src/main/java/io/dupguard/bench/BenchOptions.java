package io.dupguard.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Command-line options of {@link IdempotencyBench}: {@code --name value} or {@code --name=value}.
 * A bad option or value throws {@link IllegalArgumentException} with a message meant for the user.
 */
record BenchOptions(
        int threads,
        Duration prewarm,
        Duration warmup,
        Duration duration,
        int rounds,
        List<Target> targets,
        Path out,
        String h2Url,
        String pgUrl,
        String mariadbUrl,
        String redisUrl,
        int poolSize,
        boolean camelOnMariadb,
        boolean diagnostics,
        List<String> rows,
        boolean help) {

    /** The stores, in the order they run. */
    enum Target {
        MEMORY("memory"),
        H2("h2"),
        POSTGRESQL("postgresql"),
        MARIADB("mariadb"),
        REDIS("redis");

        final String id;

        Target(String id) {
            this.id = id;
        }

        static Target named(String name) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            return switch (n) {
                case "memory", "mem", "inmemory" -> MEMORY;
                case "h2" -> H2;
                case "postgresql", "postgres", "pg" -> POSTGRESQL;
                case "mariadb", "mysql" -> MARIADB;
                case "redis" -> REDIS;
                default ->
                    throw new IllegalArgumentException(
                            "unknown target '" + name + "'; known: memory, h2, postgresql, mariadb, redis, all");
            };
        }
    }

    static final String DEFAULT_H2_URL = "jdbc:h2:mem:dupguard-bench;DB_CLOSE_DELAY=-1";
    static final String DEFAULT_PG_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    /** With server-side prepared statements, as docs/idempotency.md tells users to configure. */
    static final String DEFAULT_MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/test?user=root&useServerPrepStmts=true";

    static final String DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

    static final String USAGE =
            """
            Usage: scripts/bench [options]

              --threads N          client threads (default 16)
              --prewarm DURATION   one unmeasured run of every row before round 1 (default 3s)
              --warmup DURATION    warmup before each measured run (default 1s)
              --duration DURATION  measured time of each run (default 3s)
              --rounds N           rounds per store, order alternating; the median is reported (default 4)
              --targets LIST       comma-separated: memory,h2,postgresql,mariadb,redis or all (default all)
              --out FILE           Markdown report to write (default docs/benchmarks.md; '-' for none)
              --h2-url URL         default jdbc:h2:mem:dupguard-bench;DB_CLOSE_DELAY=-1
              --pg-url URL         default jdbc:postgresql://127.0.0.1:5432/test?user=postgres
              --mariadb-url URL    default jdbc:mariadb://127.0.0.1:3306/test?user=root&useServerPrepStmts=true
              --redis-url URL      default redis://127.0.0.1:6379
              --pool-size N        HikariCP pool size per SQL store (default 20)
              --camel-mariadb B    also run Camel's JdbcMessageIdRepository on MariaDB (default true)
              --diagnostics        add diagnostic rows (dupguard without lease renewal, hand-written
                                   transactions, the harness alone)
              --rows LIST          only the rows whose name starts with one of these (comma-separated,
                                   case-insensitive), e.g. "dupguard transactional,camel"
              --help               this text

            DURATION: 500ms, 3s, 1m, or a plain number of seconds.
            """;

    static BenchOptions defaults() {
        return new BenchOptions(
                16,
                Duration.ofSeconds(3),
                Duration.ofSeconds(1),
                Duration.ofSeconds(3),
                4,
                List.of(Target.values()),
                Path.of("docs/benchmarks.md"),
                DEFAULT_H2_URL,
                DEFAULT_PG_URL,
                DEFAULT_MARIADB_URL,
                DEFAULT_REDIS_URL,
                20,
                true,
                false,
                List.of(),
                false);
    }

    static BenchOptions parse(String... args) {
        BenchOptions d = defaults();
        int threads = d.threads;
        Duration prewarm = d.prewarm;
        Duration warmup = d.warmup;
        Duration duration = d.duration;
        int rounds = d.rounds;
        List<Target> targets = d.targets;
        Path out = d.out;
        String h2Url = d.h2Url;
        String pgUrl = d.pgUrl;
        String mariadbUrl = d.mariadbUrl;
        String redisUrl = d.redisUrl;
        int poolSize = d.poolSize;
        boolean camelOnMariadb = d.camelOnMariadb;
        boolean diagnostics = d.diagnostics;
        List<String> rows = d.rows;
        boolean help = d.help;

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
            if (name.equals("help") || name.equals("diagnostics")) {
                if (value != null) {
                    throw new IllegalArgumentException("--" + name + " takes no value");
                }
                if (name.equals("help")) {
                    help = true;
                } else {
                    diagnostics = true;
                }
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("--" + name + " needs a value");
                }
                value = args[++i];
            }
            switch (name) {
                case "threads" -> threads = positiveInt(name, value);
                case "prewarm" -> prewarm = duration(name, value, true);
                case "warmup" -> warmup = duration(name, value, true);
                case "duration" -> duration = duration(name, value, false);
                case "rounds" -> rounds = positiveInt(name, value);
                case "targets" -> targets = targets(value);
                case "out" -> out = value.equals("-") ? null : Path.of(value);
                case "h2-url" -> h2Url = url(name, value);
                case "pg-url" -> pgUrl = url(name, value);
                case "mariadb-url" -> mariadbUrl = url(name, value);
                case "redis-url" -> redisUrl = url(name, value);
                case "pool-size" -> poolSize = positiveInt(name, value);
                case "camel-mariadb" -> camelOnMariadb = bool(name, value);
                case "rows" -> rows = rows(value);
                default -> throw new IllegalArgumentException("unknown option --" + name + " (see --help)");
            }
        }
        return new BenchOptions(
                threads,
                prewarm,
                warmup,
                duration,
                rounds,
                targets,
                out,
                h2Url,
                pgUrl,
                mariadbUrl,
                redisUrl,
                poolSize,
                camelOnMariadb,
                diagnostics,
                rows,
                help);
    }

    static String formatDuration(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
    }

    private static int positiveInt(String name, String value) {
        int n;
        try {
            n = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " needs a whole number, was '" + value + "'", e);
        }
        if (n < 1) {
            throw new IllegalArgumentException("--" + name + " must be at least 1, was " + n);
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
        // Always run in the canonical order, whatever order they were given in.
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

    /** Whether a row of this name is to run. */
    boolean runs(String rowName) {
        String n = rowName.toLowerCase(Locale.ROOT);
        return rows.isEmpty() || rows.stream().anyMatch(n::startsWith);
    }

    private static String url(String name, String value) {
        if (value.isBlank()) {
            throw new IllegalArgumentException("--" + name + " must not be empty");
        }
        return value.trim();
    }

    private static boolean bool(String name, String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw new IllegalArgumentException("--" + name + " needs true or false, was '" + value + "'");
        };
    }
}

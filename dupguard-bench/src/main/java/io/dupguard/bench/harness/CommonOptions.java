package io.dupguard.bench.harness;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options every load benchmark shares (picocli mixin). Each benchmark sets its own defaults
 * with a {@link Defaults} provider, so the same option keeps one name and one meaning everywhere.
 */
public final class CommonOptions {
    @Option(
            names = "--threads",
            paramLabel = "N",
            converter = AtLeastOne.class,
            description = "client threads (default ${DEFAULT-VALUE})")
    public int threads = 16;

    @Option(
            names = "--prewarm",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "one unmeasured run of every row before round 1 (default ${DEFAULT-VALUE})")
    public Duration prewarm = Duration.ofSeconds(3);

    @Option(
            names = "--warmup",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "warmup before each measured run (default ${DEFAULT-VALUE})")
    public Duration warmup = Duration.ofSeconds(1);

    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            converter = DurationConverter.Positive.class,
            description = "measured time of each run (default ${DEFAULT-VALUE})")
    public Duration duration = Duration.ofSeconds(3);

    @Option(
            names = "--rounds",
            paramLabel = "N",
            converter = AtLeastOne.class,
            description = "rounds per store, order alternating (default ${DEFAULT-VALUE})")
    public int rounds = 4;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            description = "Markdown report to write ('-' for none; default ${DEFAULT-VALUE})")
    public String out = "-";

    @Option(
            names = "--pg-url",
            paramLabel = "URL",
            converter = NonBlank.class,
            description = "default ${DEFAULT-VALUE}")
    public String pgUrl = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @Option(
            names = "--mariadb-url",
            paramLabel = "URL",
            converter = NonBlank.class,
            description = "default ${DEFAULT-VALUE}")
    public String mariadbUrl = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

    @Option(
            names = "--redis-url",
            paramLabel = "URL",
            converter = NonBlank.class,
            description = "default ${DEFAULT-VALUE}")
    public String redisUrl = "redis://127.0.0.1:6379";

    @Option(
            names = "--pool-size",
            paramLabel = "N",
            converter = AtLeastOne.class,
            description = "HikariCP pool size per SQL store or row (default ${DEFAULT-VALUE})")
    public int poolSize = 20;

    @Option(
            names = "--rows",
            paramLabel = "LIST",
            split = ",",
            converter = NonBlank.class,
            description = "only the rows whose name starts with one of these (comma-separated, case-insensitive)")
    public List<String> rows = new ArrayList<>();

    /** The report file, or null for none. */
    public Path out() {
        return out.equals("-") ? null : Path.of(out);
    }

    /** Whether a row of this name is to run. */
    public boolean runs(String rowName) {
        String n = rowName.toLowerCase(Locale.ROOT);
        return rows.isEmpty()
                || rows.stream().anyMatch(r -> n.startsWith(r.trim().toLowerCase(Locale.ROOT)));
    }

    /** A whole number of at least 1, or an error naming the limit. */
    public static final class AtLeastOne implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return atLeast(value, 1);
        }
    }

    /** A whole number of at least 0, or an error naming the limit. */
    public static final class AtLeastZero implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return atLeast(value, 0);
        }
    }

    static int atLeast(String value, int min) {
        int n;
        try {
            n = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a whole number");
        }
        if (n < min) {
            throw new CommandLine.TypeConversionException("must be at least " + min + ", was " + n);
        }
        return n;
    }

    /** A value that is not blank, trimmed. */
    public static final class NonBlank implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (value.isBlank()) {
                throw new CommandLine.TypeConversionException("must not be empty");
            }
            return value.trim();
        }
    }

    /**
     * The defaults of the options (this mixin's and a benchmark's own), by long option name, as the
     * usage shows them: {@link #COMMON}, overridden by what a benchmark passes.
     */
    public abstract static class Defaults implements CommandLine.IDefaultValueProvider {
        /** The shared defaults. */
        public static final Map<String, String> COMMON = Map.of(
                "--threads", "16",
                "--prewarm", "3s",
                "--warmup", "1s",
                "--duration", "3s",
                "--rounds", "4",
                "--out", "-",
                "--pg-url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
                "--mariadb-url", "jdbc:mariadb://127.0.0.1:3306/test?user=root",
                "--redis-url", "redis://127.0.0.1:6379",
                "--pool-size", "20");

        private final Map<String, String> values = new java.util.HashMap<>(COMMON);

        protected Defaults(Map<String, String> overrides) {
            values.putAll(overrides);
        }

        @Override
        public String defaultValue(CommandLine.Model.ArgSpec spec) {
            return spec instanceof CommandLine.Model.OptionSpec o ? values.get(o.longestName()) : null;
        }
    }
}

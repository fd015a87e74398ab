package io.dupguard.bench;

import io.dupguard.bench.harness.CommonOptions;
import io.dupguard.bench.harness.LoadOptions;
import io.dupguard.bench.harness.Targets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Command-line options of {@link IdempotencyBench} ({@code scripts/bench}). */
@Command(
        name = "scripts/bench",
        mixinStandardHelpOptions = true,
        defaultValueProvider = BenchOptions.Defaults.class,
        description = "Benchmarks Idempotency.execute against the hand-written ceilings of every store.",
        footer = {"", "DURATION: 500ms, 3s, 1.5s, 1m, PT3S, or a plain number of seconds."})
final class BenchOptions extends LoadOptions {

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
    /** With server-side prepared statements, as docs/idempotency.md tells users to configure. */
    static final String DEFAULT_MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/test?user=root&useServerPrepStmts=true";

    /** This benchmark's defaults. */
    static final class Defaults extends CommonOptions.Defaults {
        Defaults() {
            super(Map.of(
                    "--out", "docs/benchmarks-idempotency.md",
                    "--mariadb-url", DEFAULT_MARIADB_URL,
                    "--h2-url", DEFAULT_H2_URL,
                    "--targets", "all",
                    "--camel-mariadb", "true"));
        }
    }

    /** A target's name or "all", checked when parsed. */
    static final class TargetName implements picocli.CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return Targets.check(value, Target::named);
        }
    }

    @Option(
            names = "--targets",
            paramLabel = "LIST",
            split = ",",
            converter = TargetName.class,
            description = "comma-separated: memory,h2,postgresql,mariadb,redis or all (default ${DEFAULT-VALUE})")
    List<String> targetNames = new ArrayList<>();

    @Option(
            names = "--h2-url",
            paramLabel = "URL",
            converter = CommonOptions.NonBlank.class,
            description = "default ${DEFAULT-VALUE}")
    String h2Url = DEFAULT_H2_URL;

    @Option(
            names = "--camel-mariadb",
            paramLabel = "B",
            arity = "1",
            description = "also run Camel's JdbcMessageIdRepository on MariaDB (default ${DEFAULT-VALUE})")
    boolean camelOnMariadb = true;

    @Option(
            names = "--diagnostics",
            description =
                    "add diagnostic rows (dupguard without lease renewal, hand-written transactions, the harness alone)")
    boolean diagnostics;

    static BenchOptions parse(String... args) {
        return io.dupguard.bench.harness.Cli.parse(new BenchOptions(), args);
    }

    String h2Url() {
        return h2Url;
    }

    boolean camelOnMariadb() {
        return camelOnMariadb;
    }

    boolean diagnostics() {
        return diagnostics;
    }

    /** The chosen stores, in the canonical order whatever order they were given in. */
    List<Target> targets() {
        return Targets.resolve(targetNames, Target.values(), Target::named);
    }
}

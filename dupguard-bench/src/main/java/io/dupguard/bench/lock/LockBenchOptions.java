package io.dupguard.bench.lock;

import io.dupguard.bench.harness.Cli;
import io.dupguard.bench.harness.CommonOptions;
import io.dupguard.bench.harness.DurationConverter;
import io.dupguard.bench.harness.LoadOptions;
import io.dupguard.bench.harness.Targets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Command-line options of {@link LockBench} ({@code scripts/bench-locks}). */
@Command(
        name = "scripts/bench-locks",
        mixinStandardHelpOptions = true,
        defaultValueProvider = LockBenchOptions.Defaults.class,
        description = "Benchmarks dupguard's lock providers against their peers and hand-written ceilings.",
        footer = {
            "",
            "DURATION: 500ms, 3s, 1.5s, 1m, PT3S, or a plain number of seconds.",
            "ZooKeeper runs in-process (Curator's TestingServer); the other servers must be up."
        })
final class LockBenchOptions extends LoadOptions {

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

    /** This benchmark's defaults. */
    static final class Defaults extends CommonOptions.Defaults {
        Defaults() {
            super(Map.of(
                    "--duration", "5s",
                    "--rounds", "3",
                    "--out", "docs/benchmarks-locks.md",
                    "--pool-size", "16",
                    "--targets", "all",
                    "--audit-cycles", "200",
                    "--audit-contended", "1s"));
        }
    }

    /** A target's name or "all", checked when parsed. */
    static final class TargetName implements CommandLine.ITypeConverter<String> {
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
            description = "comma-separated: redis,postgresql,mariadb,zookeeper or all (default ${DEFAULT-VALUE})")
    List<String> targetNames = new ArrayList<>();

    @Option(
            names = "--audit-cycles",
            paramLabel = "N",
            converter = CommonOptions.AtLeastZero.class,
            description = "lock cycles of the single-threaded audit per row (default ${DEFAULT-VALUE}; 0: no audit)")
    int auditCycles = 200;

    @Option(
            names = "--audit-contended",
            paramLabel = "DURATION",
            converter = DurationConverter.Positive.class,
            description = "length of the contended audit per row (default ${DEFAULT-VALUE})")
    Duration auditContended = Duration.ofSeconds(1);

    static LockBenchOptions parse(String... args) {
        return Cli.parse(new LockBenchOptions(), args);
    }

    int auditCycles() {
        return auditCycles;
    }

    Duration auditContended() {
        return auditContended;
    }

    /** The chosen stores, in the canonical order. */
    List<Target> targets() {
        return Targets.resolve(targetNames, Target.values(), Target::named);
    }
}

package io.dupguard.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.bench.ReplicaAcksBench.Window;
import io.dupguard.bench.harness.Cli;
import io.dupguard.bench.harness.CommonOptions;
import io.dupguard.bench.harness.LoadOptions;
import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.bench.harness.Markdown;
import io.dupguard.bench.harness.Rounds;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcLockProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What ShardingSphere-JDBC costs dupguard per request (docs/scaling-sharding.md): claim+complete on {@link
 * JdbcIdempotencyStore} and acquire+release on {@link JdbcLockProvider}, through ShardingSphere over
 * the two shard databases of an engine (the YAML the {@code Sharding*IT} load) and directly on the
 * first of them, PostgreSQL and MariaDB, in one JVM. After an unmeasured round, every round runs
 * every row once, direct and sharded alternating first; the table shows the median of the rounds'
 * ops/s and p99, and sharded/direct. Both shards share one server here, so the ratio is the proxy's
 * own overhead, not what more servers would add. Run it with {@code scripts/bench-sharding}.
 */
public final class ShardingBench {
    private static final Pattern JDBC_URL = Pattern.compile("(?m)^\\s*jdbcUrl:\\s*(\\S+)\\s*$");

    /** Command-line options of {@code scripts/bench-sharding}: the shared ones and the YAML folder. */
    @Command(
            name = "scripts/bench-sharding",
            mixinStandardHelpOptions = true,
            defaultValueProvider = Options.Defaults.class,
            description = "Claim+complete and lock acquire+release through ShardingSphere-JDBC and directly.",
            footer = {"", "DURATION: 500ms, 3s, 1.5s, 1m, PT3S, or a plain number of seconds."})
    static final class Options extends LoadOptions {
        static final class Defaults extends CommonOptions.Defaults {
            Defaults() {
                super(Map.of(
                        "--threads", "8",
                        "--prewarm", "2s",
                        "--rounds", "3",
                        "--yaml-dir", "dupguard-jdbc/src/test/resources/sharding"));
            }
        }

        @Option(
                names = "--yaml-dir",
                paramLabel = "DIR",
                description = "where mariadb.yaml and postgresql.yaml are (default ${DEFAULT-VALUE})")
        Path yamlDir;
    }

    private ShardingBench() {}

    public static void main(String[] args) throws Exception {
        String command = Cli.commandLine("scripts/bench-sharding", args);
        System.exit(Cli.run(new Options(), args, o -> run(o, command)));
    }

    static int run(Options o, String command) throws Exception {
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Map<String, String> machine = MachineInfo.collect();
        String[] engines = {"postgresql", "mariadb"};
        String[] workloads = {"claim+complete", "lock acquire+release"};
        String[] targets = {"direct", "sharded"};
        List<List<Window>> windows = new ArrayList<>();
        for (int i = 0; i < engines.length * workloads.length * targets.length; i++) {
            windows.add(new ArrayList<>());
        }
        long errors = 0;
        for (int e = 0; e < engines.length; e++) {
            byte[] yaml = Files.readAllBytes(o.yamlDir.resolve(engines[e] + ".yaml"));
            List<String> urls = urls(yaml);
            String user = engines[e].equals("postgresql") ? "postgres" : "root";
            List<HikariDataSource> shards = new ArrayList<>();
            for (String url : urls) {
                shards.add(pool(url, user, o.poolSize()));
            }
            try {
                for (HikariDataSource shard : shards) {
                    // The schema on every shard directly, as docs/scaling-sharding.md says.
                    JdbcIdempotencyStore.builder(shard)
                            .createSchemaIfMissing(true)
                            .build()
                            .dialect();
                    JdbcLockProvider.builder(shard)
                            .createSchemaIfMissing(true)
                            .build()
                            .dialect();
                }
                DataSource sharded = YamlShardingSphereDataSourceFactory.createDataSource(yaml);
                DataSource[] sources = {shards.get(0), sharded};
                for (int round = 0; round <= o.rounds(); round++) {
                    for (int w = 0; w < workloads.length; w++) {
                        for (int k = 0; k < targets.length; k++) {
                            int t = round % 2 == 1 ? k : targets.length - 1 - k;
                            Duration window = round == 0 ? o.prewarm() : o.duration();
                            Window r = w == 0 ? claims(sources[t], o, window) : locks(sources[t], o, window);
                            errors += r.errors();
                            if (round > 0) {
                                windows.get(index(e, w, t)).add(r);
                            }
                            Cli.log(String.format(
                                    Locale.ROOT,
                                    "round %d  %-10s %-21s %-8s %10s ops/s  p99 %8s µs%s",
                                    round,
                                    engines[e],
                                    workloads[w],
                                    targets[t],
                                    Markdown.ops(r.opsPerSecond()),
                                    Markdown.micros(r.p99Micros()),
                                    r.errors() > 0 ? "  ERRORS " + r.errors() + ": " + r.firstError() : ""));
                        }
                    }
                }
                if (sharded instanceof AutoCloseable c) {
                    c.close();
                }
            } finally {
                shards.forEach(HikariDataSource::close);
            }
        }
        machine.put("Load average 1/5/15 min at end", MachineInfo.loadAverage());
        Markdown.Table table =
                new Markdown.Table("lllrrr", "engine", "workload", "target", "ops/s", "p99 µs", "ops/s vs direct");
        for (int e = 0; e < engines.length; e++) {
            for (int w = 0; w < workloads.length; w++) {
                double base = median(windows.get(index(e, w, 0)));
                for (int t = 0; t < targets.length; t++) {
                    List<Window> rounds = windows.get(index(e, w, t));
                    double ops = median(rounds);
                    table.row(
                            engines[e],
                            workloads[w],
                            targets[t],
                            Markdown.ops(ops),
                            Markdown.micros(Rounds.median(rounds.stream()
                                    .mapToDouble(Window::p99Micros)
                                    .toArray())),
                            Markdown.ratio(ops / base));
                }
            }
        }
        return ReplicaAcksBench.report(command, started, t0, machine, Map.of(), o, table, errors);
    }

    private static int index(int engine, int workload, int target) {
        return (engine * 2 + workload) * 2 + target;
    }

    private static double median(List<Window> rounds) {
        return Rounds.median(rounds.stream().mapToDouble(Window::opsPerSecond).toArray());
    }

    private static List<String> urls(byte[] yaml) {
        List<String> urls = new ArrayList<>();
        Matcher m = JDBC_URL.matcher(new String(yaml, StandardCharsets.UTF_8));
        while (m.find()) {
            urls.add(m.group(1));
        }
        return urls;
    }

    private static HikariDataSource pool(String url, String user, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword("");
        config.setMaximumPoolSize(size);
        return new HikariDataSource(config);
    }

    private static Window claims(DataSource ds, Options o, Duration window) throws InterruptedException {
        String scope =
                "bench-shard-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        return ReplicaAcksBench.measure(
                o, window, ReplicaAcksBench.claimAndComplete(JdbcIdempotencyStore.create(ds), scope));
    }

    private static Window locks(DataSource ds, Options o, Duration window) throws InterruptedException {
        String prefix =
                "bench-shard-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "-";
        return ReplicaAcksBench.measure(
                o, window, ReplicaAcksBench.acquireAndRelease(JdbcLockProvider.create(ds), prefix));
    }
}

package io.dupguard.lab.cli;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.fault.Fault;
import io.dupguard.lab.fault.Faults;
import io.dupguard.lab.report.ConsoleProgress;
import io.dupguard.lab.report.HtmlReport;
import io.dupguard.lab.report.JsonReport;
import io.dupguard.lab.report.TextReport;
import io.dupguard.lab.storm.Need;
import io.dupguard.lab.storm.Soak;
import io.dupguard.lab.storm.Storm;
import io.dupguard.lab.storm.StormReport;
import io.dupguard.lab.storm.StormSettings;
import io.dupguard.lab.storm.Workload;
import io.dupguard.lab.storm.Workloads;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code dupguard storm}: the duplicate-request storm. */
@Command(
        name = "storm",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        sortOptions = false,
        description = {
            "Many clients send requests through a slow service; clients time out and retry the same request"
                    + " while the first attempt still runs, and some requests are sent twice. Each strategy of each"
                    + " workload runs in turn; a checker then counts the effects in the database.",
            "Exits 1 if any dupguard strategy shows a duplicate effect, a lost request, an accepted tampered"
                    + " duplicate or a replay different from the first answer."
        },
        footer = {"", "List workloads and strategies with: dupguard storm --list. More: docs/lab.md"})
final class StormCommand implements Callable<Integer> {
    private static final int MAX_CLIENTS = 1024;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--workload",
            split = ",",
            paramLabel = "NAME",
            description =
                    "Workloads to run: ${COMPLETION-CANDIDATES}, or all (default: all but account-credit and lock-backends)",
            completionCandidates = WorkloadNames.class)
    private List<String> workloads = List.of();

    @Option(
            names = "--strategy",
            split = ",",
            paramLabel = "NAME",
            description = "Strategies to run (default: all the servers given allow)")
    private List<String> strategies = List.of();

    @Option(names = "--clients", paramLabel = "N", description = "Concurrent clients (default: ${DEFAULT-VALUE})")
    private int clients = StormSettings.DEFAULT_CLIENTS;

    @Option(
            names = "--duration",
            paramLabel = "TIME",
            converter = DurationConverter.class,
            description = "How long each strategy runs, e.g. 3s, 500ms (default: 1s); with --soak, the whole soak"
                    + " (default: 10m)")
    private Duration duration;

    @Option(
            names = "--seed",
            paramLabel = "N",
            description = "Seed of requests, duplicates and latencies (default: ${DEFAULT-VALUE})")
    private long seed = StormSettings.DEFAULT_SEED;

    @Option(
            names = "--timeout",
            paramLabel = "TIME",
            converter = DurationConverter.class,
            description = "Client timeout before it retries the same request (default: 40ms)")
    private Duration timeout = StormSettings.DEFAULT_TIMEOUT;

    @Option(
            names = "--double-send-rate",
            paramLabel = "SHARE",
            description = "Share of requests sent twice at once, a double click (0-1, default: ${DEFAULT-VALUE});"
                    + " --soak sets its own")
    private double doubleSendRate = StormSettings.DEFAULT_DOUBLE_SEND_RATE;

    @Option(
            names = "--redelivery-rate",
            paramLabel = "SHARE",
            description = "Share of requests delivered once more after their answer, a lost acknowledgement (0-1,"
                    + " default: ${DEFAULT-VALUE}); --soak sets its own")
    private double redeliveryRate = StormSettings.DEFAULT_REDELIVERY_RATE;

    @Option(
            names = "--jdbc-url",
            paramLabel = "URL",
            description = "Database instead of embedded H2, e.g. jdbc:postgresql://127.0.0.1:5432/test?user=postgres"
                    + " or jdbc:mariadb://127.0.0.1:3306/test?user=root")
    private String jdbcUrl;

    @Option(
            names = "--jdbc-url-2",
            paramLabel = "URL",
            description =
                    "Where the second application instance (instance-crash, galera-node-kill) connects: another"
                            + " node of --jdbc-url's database, e.g. a second Galera node"
                            + " jdbc:mariadb:sequential://127.0.0.1:3327,127.0.0.1:3326/test?user=root&sessionVariables=wsrep_sync_wait=7 (default: --jdbc-url)")
    private String jdbcUrl2;

    @Option(
            names = "--jdbc-replica-url",
            paramLabel = "URL",
            description = "A PostgreSQL streaming hot standby of --jdbc-url, for the naive replica-check strategy"
                    + " (duplicate check on the standby, charge on the primary) and the replica-lag fault,"
                    + " e.g. jdbc:postgresql://127.0.0.1:5443/test?user=postgres")
    private String replicaUrl;

    @Option(
            names = "--redis-url",
            paramLabel = "URL",
            description = "Redis for the Redis strategies: redis://host:port (standalone), or a comma-separated"
                    + " list of redis:// URIs or redis-cluster://host:port,host:port (Cluster)")
    private String redisUrl;

    @Option(
            names = "--redlock-urls",
            paramLabel = "URLS",
            description = "Three or more independent Redis servers for the Redlock strategies,"
                    + " e.g. redis://127.0.0.1:7100,redis://127.0.0.1:7101,redis://127.0.0.1:7102")
    private String redlockUrls;

    @Option(
            names = {"--zookeeper", "--zookeeper-url"},
            paramLabel = "ADDRESS",
            description = "ZooKeeper for the ZooKeeper strategies: host:port[,host:port...], or 'embedded' to start"
                    + " an in-process server for this run")
    private String zookeeper;

    @Option(
            names = "--faults",
            split = ",",
            paramLabel = "NAME",
            description = "Run every strategy once under each fault: store-stall (Redis CLIENT PAUSE, a SQL table"
                    + " lock, 1 s), connection-kill (the lab's own database and Redis connections, every 250 ms),"
                    + " redis-restart / redis-restart-aof (the Redis strategies on a redis-server of the lab's own,"
                    + " killed and restarted, without / with an fsynced append-only file), instance-crash (a second"
                    + " application instance serving a third of the clients dies mid-flight), galera-node-kill (the Galera"
                    + " node of that instance, --jdbc-url-2, killed with SIGKILL and restarted), replica-lag (WAL replay paused"
                    + " on the --jdbc-replica-url standby), pg-failover / pg-failover-sync (a PostgreSQL primary +"
                    + " asynchronous / synchronous standby of the lab's own, the primary crashed and the standby"
                    + " promoted; -rejoin: the old primary then rewound and back as its standby, -second-primary /"
                    + " -second-primary-new-first: back as a second primary, the URL listing it / the new primary"
                    + " first), redis-failover / redis-failover-kill (a Sentinel-managed Redis of the lab's own,"
                    + " SENTINEL FAILOVER / master killed; -acks variants with replicaAcks(1, 500 ms)), redis-partition"
                    + " (a redis-server of the lab's own behind a relay cut both ways for 3 s), or all (all but"
                    + " the failovers, redis-partition and galera-node-kill). Invariants still hold where the store setting can keep them; errors surfaced"
                    + " to clients are allowed")
    private List<String> faults = List.of();

    @Option(
            names = "--soak",
            description = "Soak instead of storm: the dupguard strategies round after round under every fault that"
                    + " applies, 25 %% of requests sent twice and 10 %% redelivered, for --duration (default 10m); needs --jdbc-url and"
                    + " --redis-url. Reports heap after GC, threads and sessions per round; exits 1 on a broken"
                    + " invariant, a growing heap or a leak")
    private boolean soak;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON")
    private Path json;

    @Option(names = "--html", paramLabel = "FILE", description = "Also write a self-contained HTML report")
    private Path html;

    @Option(names = "--list", description = "List workloads and strategies, then exit")
    private boolean list;

    private final boolean terminal;

    StormCommand(boolean terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (list) {
            StormPlanner.list(out);
            return DupguardCli.OK;
        }
        StormSettings settings = settings();
        checkWritable(json, "--json");
        checkWritable(html, "--html");
        if (soak) {
            return SoakRun.run(spec.commandLine(), this, settings, jdbcUrl, redisUrl, json, out);
        }
        List<Storm.Plan> plans = StormPlanner.plan(spec.commandLine(), workloads, strategies, this::given);
        LabEnvironment env;
        try {
            env = LabEnvironment.open(jdbcUrl, redisUrl, redlockUrls, zookeeper, replicaUrl);
            env.instancesAt(jdbcUrl2);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        StormReport report;
        try (env;
                ConsoleProgress progress =
                        new ConsoleProgress(spec.commandLine().getErr(), terminal)) {
            report = Storm.run(plans, env, settings, setup(env, settings), progress, faults(env, out));
        }
        TextReport.print(report, out);
        if (json != null) {
            JsonReport.write(report, json);
            out.println("json: " + json);
        }
        if (html != null) {
            HtmlReport.write(report, html);
            out.println("html: " + html);
        }
        return report.ok() ? DupguardCli.OK : DupguardCli.INVARIANT_BROKEN;
    }

    /** The soak's plan: the named workloads and strategies, or its defaults ({@link SoakRun#WORKLOADS}). */
    List<Storm.Plan> soakPlans() {
        return StormPlanner.plan(
                spec.commandLine(), workloads.isEmpty() ? SoakRun.WORKLOADS : workloads, strategies, this::given);
    }

    /** The soak's faults: the named ones, or all. */
    List<Fault> soakFaults(LabEnvironment env, PrintWriter out) {
        if (faults.isEmpty()) {
            faults = List.of("all");
        }
        return faults(env, out);
    }

    /** The faults to inject: named ones must apply to the servers given; "all" skips the others. */
    private List<Fault> faults(LabEnvironment env, PrintWriter out) {
        List<Fault> chosen;
        try {
            chosen = Faults.parse(faults);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--faults: " + e.getMessage(), e);
        }
        List<Fault> usable = new ArrayList<>();
        for (Fault f : chosen) {
            var why = f.unsupported(env);
            if (why.isEmpty()) {
                usable.add(f);
            } else if (faults.contains("all")) {
                out.println("skipping fault " + f.name() + ": " + why.get());
            } else {
                throw new ParameterException(spec.commandLine(), "--faults " + f.name() + ": " + why.get());
            }
        }
        return usable;
    }

    private boolean given(Need need) {
        return switch (need) {
            case REDIS -> redisUrl != null;
            case REDLOCK -> redlockUrls != null;
            case ZOOKEEPER -> zookeeper != null;
            case REPLICA -> replicaUrl != null;
        };
    }

    private StormSettings settings() {
        if (clients < 1 || clients > MAX_CLIENTS) {
            throw new ParameterException(
                    spec.commandLine(), "--clients must be between 1 and " + MAX_CLIENTS + ", was " + clients);
        }
        rate(doubleSendRate, "--double-send-rate");
        rate(redeliveryRate, "--redelivery-rate");
        Duration d = duration != null ? duration : soak ? Soak.DEFAULT_DURATION : StormSettings.DEFAULT_DURATION;
        return StormSettings.defaults()
                .withClients(clients)
                .withDuration(d)
                .withSeed(seed)
                .withTimeout(timeout)
                .withDuplicateRates(doubleSendRate, redeliveryRate);
    }

    private void rate(double share, String option) {
        if (!(share >= 0 && share <= 1)) {
            throw new ParameterException(spec.commandLine(), option + " must be between 0 and 1, was " + share);
        }
    }

    private void checkWritable(Path file, String option) {
        if (file == null) {
            return;
        }
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir) || !Files.isWritable(dir)) {
            throw new ParameterException(
                    spec.commandLine(),
                    option + " " + file + ": directory " + dir + " does not exist or is not writable");
        }
        if (Files.isDirectory(file)) {
            throw new ParameterException(spec.commandLine(), option + " " + file + " is a directory");
        }
    }

    private static StormReport.Setup setup(LabEnvironment env, StormSettings s) {
        return new StormReport.Setup(
                VersionProvider.version(),
                s.clients(),
                s.duration().toMillis(),
                s.seed(),
                s.timeout().toMillis(),
                s.maxAttempts(),
                s.doubleSendRate(),
                s.redeliveryRate(),
                s.tamperRate(),
                String.format(
                        Locale.ROOT,
                        "log-normal, median %d ms, sigma %.2f, %d-%d ms",
                        s.latency().median().toMillis(),
                        s.latency().sigma(),
                        s.latency().min().toMillis(),
                        s.latency().max().toMillis()),
                env.databaseLabel(),
                env.redis().map(r -> r.label()).orElse(""),
                env.redlock().map(r -> r.label()).orElse(""),
                env.zookeeper().map(z -> z.label()).orElse(""),
                env.lockLabel());
    }

    /** For {@code ${COMPLETION-CANDIDATES}} in the help. */
    static final class WorkloadNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Workloads.all().stream().map(Workload::name).iterator();
        }
    }
}

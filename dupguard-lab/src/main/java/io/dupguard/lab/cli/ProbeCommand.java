package io.dupguard.lab.cli;

import io.dupguard.lab.probe.HttpProbe;
import io.dupguard.lab.probe.KafkaProbe;
import io.dupguard.lab.probe.MessageProbe;
import io.dupguard.lab.probe.Probe;
import io.dupguard.lab.probe.ProbeInputException;
import io.dupguard.lab.probe.ProbeReport;
import io.dupguard.lab.probe.RabbitProbe;
import io.dupguard.lab.report.JsonReport;
import io.dupguard.lab.report.ProbeHtmlReport;
import io.dupguard.lab.report.ProbeTextReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dupguard probe}: the lab pointed at the user's own running service. */
@Command(
        name = "probe",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Point the lab at your own running service and find out whether it takes each request once.",
        subcommands = {ProbeCommand.Http.class, ProbeCommand.Rabbit.class, ProbeCommand.Kafka.class},
        footer = {"", "More: docs/probe.md"})
final class ProbeCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return DupguardCli.USAGE;
    }

    /** {@code --effects-jdbc-url} and {@code --effects-sql}, shared by every probe. */
    static final class EffectsOptions {
        @Option(
                names = "--effects-jdbc-url",
                required = true,
                paramLabel = "URL",
                description = "The database the effects land in (PostgreSQL, MariaDB, H2)")
        String jdbcUrl;

        @Option(
                names = "--effects-sql",
                required = true,
                paramLabel = "SQL",
                description =
                        "Counts one key's effects, with :key, e.g. \"select count(*) from payments where request_id"
                                + " = :key\"; repeatable (every query must count 1 per key)")
        List<String> sql = new ArrayList<>();
    }

    /** {@code --json} and {@code --html}, shared by every probe. */
    static final class OutputOptions {
        @Option(names = "--json", description = "Print the verdicts as JSON instead of the table")
        boolean json;

        @Option(names = "--html", paramLabel = "FILE", description = "Also write a self-contained HTML report")
        Path html;

        /** Refuses an {@code --html} file in a directory that does not exist, before any traffic. */
        void check() {
            if (html != null
                    && html.toAbsolutePath().getParent() != null
                    && !Files.isDirectory(html.toAbsolutePath().getParent())) {
                throw new ProbeInputException(
                        "--html: no directory " + html.toAbsolutePath().getParent());
            }
        }

        /** Prints the verdicts (the table, or JSON), writes the HTML report; the exit status. */
        int print(ProbeReport report, PrintWriter out, PrintWriter err) throws IOException {
            if (json) {
                out.println(JsonReport.json(report));
            } else {
                ProbeTextReport.print(report, out);
            }
            if (html != null) {
                ProbeHtmlReport.write(report, html);
                err.println("html: " + html);
            }
            out.flush();
            return report.ok() ? DupguardCli.OK : DupguardCli.INVARIANT_BROKEN;
        }
    }

    /** The message probes' body, copies, keys and counting options (rabbitmq, kafka). */
    static final class MessageOptions {
        @Option(
                names = "--body",
                paramLabel = "@FILE|TEXT",
                description = "Body template; {{key}}, {{uuid}} and {{n}} are filled per logical message")
        String body = "";

        @Option(names = "--changed-body", paramLabel = "@FILE|TEXT", description = "Body sent with a used id")
        String changedBody;

        @Option(
                names = "--content-type",
                paramLabel = "TYPE",
                description = "The messages' content type (default: ${DEFAULT-VALUE})")
        String contentType = "application/json";

        @Option(
                names = "--copies",
                paramLabel = "N",
                description = "Copies per key in published-n-times (default: ${DEFAULT-VALUE})")
        int copies = 8;

        @Option(names = "--keys", paramLabel = "N", description = "Keys per scenario (default: ${DEFAULT-VALUE})")
        int keys = 2;

        @Option(
                names = "--settle",
                paramLabel = "TIME",
                converter = DurationConverter.class,
                description = "Wait before counting effects (default: 2s)")
        Duration settle = Duration.ofSeconds(2);

        @Option(
                names = "--lost-after",
                paramLabel = "TIME",
                converter = DurationConverter.class,
                description = "Keep counting a key without effects this long before calling it lost (default: 15s)")
        Duration lostAfter = Duration.ofSeconds(15);

        @Option(
                names = "--launch",
                paramLabel = "CMD",
                description = "Start the consuming service with CMD (sh -c), stop it at the end; enables the kill"
                        + " scenario")
        String launch;

        @Option(
                names = "--restart",
                paramLabel = "CMD",
                description = "A command that kills the service hard and starts it again; enables the kill scenario")
        String restart;

        @Option(
                names = "--health",
                paramLabel = "URL",
                description = "Ready when GET URL answers 2xx (default: when the broker sees the service consuming)")
        String health;

        @Option(
                names = "--start-timeout",
                paramLabel = "TIME",
                converter = DurationConverter.class,
                description = "How long a (re)started service has to become ready (default: 180s)")
        Duration startTimeout = Duration.ofSeconds(180);

        @Option(
                names = "--kill-after",
                paramLabel = "TIME",
                converter = DurationConverter.class,
                description = "Delay from the burst's first message to the kill in the kill scenario (default: 300ms)")
        Duration killAfter = Duration.ofMillis(300);

        @Option(
                names = "--burst",
                paramLabel = "N",
                description = "Messages with fresh ids in the kill scenario's burst (default: ${DEFAULT-VALUE})")
        int burst = 20;

        /**
         * Gives {@code probe} these options and the {@code effects}, runs it, prints the report; the
         * exit status (2 on bad input).
         */
        int run(MessageProbe<?> probe, EffectsOptions effects, OutputOptions output, CommandSpec spec)
                throws IOException {
            PrintWriter err = spec.commandLine().getErr();
            ProbeReport report;
            try {
                probe.body(Http.text(body, "--body"))
                        .contentType(contentType)
                        .copies(copies)
                        .keys(keys)
                        .settle(settle, lostAfter)
                        .startTimeout(startTimeout)
                        .killAfter(killAfter)
                        .burst(burst)
                        .progress(line -> err.println(line));
                if (changedBody != null) {
                    probe.changedBody(Http.text(changedBody, "--changed-body"));
                }
                if (launch != null) {
                    probe.launch(launch, health);
                }
                if (restart != null) {
                    probe.restart(restart, health);
                }
                effects.sql.forEach(sql -> probe.effects(effects.jdbcUrl, sql));
                output.check();
                report = probe.run();
            } catch (ProbeInputException e) {
                err.println("dupguard: " + e.getMessage());
                return DupguardCli.USAGE;
            }
            return output.print(report, spec.commandLine().getOut(), err);
        }
    }

    /** {@code dupguard probe kafka}. */
    @Command(
            name = "kafka",
            mixinStandardHelpOptions = true,
            versionProvider = VersionProvider.class,
            sortOptions = false,
            description = {
                "Publishes the message scenarios (the same record N times, the same record again after the"
                        + " service's consumer group committed it, the same id with another body, no id and, with"
                        + " --launch or --restart, a kill -9 mid-burst) to a topic your running service consumes, each"
                        + " on fresh keys, then counts each key's effects with --effects-sql.",
                "Exits 1 if any key took effect twice or more, or not at all; 2 on bad input, an unreachable broker,"
                        + " an unknown topic, a group without a member consuming it, or an unreachable database,"
                        + " before any record is published."
            },
            footer = {"", "More: docs/probe.md"})
    static final class Kafka implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(
                names = "--bootstrap-servers",
                paramLabel = "HOST:PORT[,…]",
                description = "The Kafka cluster (default: ${DEFAULT-VALUE})")
        private String bootstrapServers = "127.0.0.1:9092";

        @Option(names = "--topic", required = true, paramLabel = "NAME", description = "The topic the service consumes")
        private String topic;

        @Option(
                names = "--group",
                required = true,
                paramLabel = "ID",
                description = "The service's consumer group: must have a member consuming --topic; its commits pace"
                        + " the redelivery scenario")
        private String group;

        @Option(
                names = "--key-header",
                paramLabel = "NAME",
                description = "The header carrying the key (default: ${DEFAULT-VALUE})")
        private String keyHeader = "message-id";

        @Option(
                names = "--record-key",
                description = "Also put the key in the record key (the copies then share a partition; without it"
                        + " they are spread over the topic's partitions)")
        private boolean recordKey;

        @Option(
                names = "--kafka-property",
                paramLabel = "KEY=VALUE",
                description = "A Kafka client setting for the probe's producer and admin client (security.protocol,"
                        + " sasl.*, ssl.*, …); repeatable")
        private Map<String, String> kafkaProperties = new LinkedHashMap<>();

        @Mixin
        private MessageOptions message;

        @Mixin
        private EffectsOptions effects;

        @Mixin
        private OutputOptions output;

        @Override
        public Integer call() throws IOException {
            KafkaProbe probe = Probe.kafka(bootstrapServers)
                    .topic(topic)
                    .group(group)
                    .idHeader(keyHeader)
                    .idAsRecordKey(recordKey);
            kafkaProperties.forEach(probe::clientProperty);
            return message.run(probe, effects, output, spec);
        }
    }

    /** {@code dupguard probe rabbitmq}. */
    @Command(
            name = "rabbitmq",
            mixinStandardHelpOptions = true,
            versionProvider = VersionProvider.class,
            sortOptions = false,
            description = {
                "Publishes the message scenarios (the same message N times, a redelivery through a consumer of the"
                        + " probe's own that nacks with requeue, the same id with another body, no id and, with"
                        + " --launch or --restart, a kill -9 mid-burst) to a queue your running service consumes, each"
                        + " on fresh keys, then counts each key's effects with --effects-sql.",
                "Exits 1 if any key took effect twice or more, or not at all; 2 on bad input or an unreachable"
                        + " broker, queue (or one without a consumer) or database, before any message is published."
            },
            footer = {"", "More: docs/probe.md"})
    static final class Rabbit implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(names = "--uri", paramLabel = "URI", description = "The broker (default: ${DEFAULT-VALUE})")
        private String uri = "amqp://guest:guest@127.0.0.1:5672";

        @Option(names = "--queue", required = true, paramLabel = "NAME", description = "The queue the service consumes")
        private String queue;

        @Option(
                names = "--exchange",
                paramLabel = "NAME",
                description = "Publish to this exchange with --routing-key (default: the default exchange, to --queue)")
        private String exchange;

        @Option(names = "--routing-key", paramLabel = "KEY", description = "The routing key with --exchange")
        private String routingKey;

        @Option(
                names = "--key-header",
                paramLabel = "NAME",
                description = "Carry the key in this header (default: the message-id property)")
        private String keyHeader;

        @Mixin
        private MessageOptions message;

        @Mixin
        private EffectsOptions effects;

        @Mixin
        private OutputOptions output;

        @Override
        public Integer call() throws IOException {
            RabbitProbe probe = Probe.rabbitmq(uri).queue(queue).keyHeader(keyHeader);
            if (exchange != null) {
                probe.exchange(exchange, routingKey == null ? queue : routingKey);
            }
            return message.run(probe, effects, output, spec);
        }
    }

    /** {@code dupguard probe http}. */
    @Command(
            name = "http",
            mixinStandardHelpOptions = true,
            versionProvider = VersionProvider.class,
            sortOptions = false,
            description = {
                "Sends the HTTP scenarios (sequential retry, concurrent duplicates, retry after a cut connection, the"
                        + " same key with a changed body, no key, replay equality and, with --launch or --restart,"
                        + " a kill -9 mid-request) to one endpoint, each on fresh keys, then counts each key's effects"
                        + " with --effects-sql.",
                "Exits 1 if any key took effect twice or more, or not at all after a success answer; 2 on bad input"
                        + " or an unreachable service or database, before any request is sent."
            },
            footer = {"", "More: docs/probe.md"})
    static final class Http implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(
                names = "--url",
                required = true,
                paramLabel = "URL",
                description = "The endpoint, e.g. http://127.0.0.1:8080/payments")
        private String url;

        @Option(names = "--method", paramLabel = "METHOD", description = "Request method (default: ${DEFAULT-VALUE})")
        private String method = "POST";

        @Option(
                names = "--body",
                paramLabel = "@FILE|TEXT",
                description = "Body template; {{key}}, {{uuid}} and {{n}} are filled per logical request")
        private String body = "";

        @Option(
                names = "--changed-body",
                paramLabel = "@FILE|TEXT",
                description = "Body the changed-body scenario sends with a used key (default: the body with one more"
                        + " JSON member, or a trailing line)")
        private String changedBody;

        @Option(
                names = "--header",
                paramLabel = "'NAME: VALUE'",
                description = "A header for every request; repeatable")
        private List<String> headers = new ArrayList<>();

        @Option(
                names = "--key-header",
                paramLabel = "NAME",
                description =
                        "The header carrying the key (default: ${DEFAULT-VALUE}); '' when the key is in the body only")
        private String keyHeader = "Idempotency-Key";

        @Mixin
        private EffectsOptions effects;

        @Option(
                names = "--concurrency",
                paramLabel = "N",
                description = "Concurrent duplicates per key (default: ${DEFAULT-VALUE})")
        private int concurrency = 32;

        @Option(names = "--keys", paramLabel = "N", description = "Keys per scenario (default: ${DEFAULT-VALUE})")
        private int keys = 2;

        @Option(
                names = "--cut-after",
                split = ",",
                paramLabel = "TIME",
                converter = DurationConverter.class,
                description = "Client timeouts of the cut-connection scenario (default: 10ms,100ms,1s)")
        private List<Duration> cutAfter;

        @Option(
                names = "--kill-after",
                split = ",",
                paramLabel = "TIME",
                converter = DurationConverter.class,
                description = "Delays from sending to the kill in the kill scenario (default: 10ms,100ms)")
        private List<Duration> killAfter;

        @Option(
                names = "--final-answer-timeout",
                paramLabel = "TIME",
                converter = DurationConverter.class,
                description = "How long a client retries a key for a final answer (default: 30s)")
        private Duration finalAnswerTimeout = Duration.ofSeconds(30);

        @Option(
                names = "--settle",
                paramLabel = "TIME",
                converter = DurationConverter.class,
                description = "Wait before counting effects (default: 1s)")
        private Duration settle = Duration.ofSeconds(1);

        @Option(
                names = "--lost-after",
                paramLabel = "TIME",
                converter = DurationConverter.class,
                description = "Keep counting a key answered with success and without effects this long before calling"
                        + " it lost (default: 15s)")
        private Duration lostAfter = Duration.ofSeconds(15);

        @Option(
                names = "--launch",
                paramLabel = "CMD",
                description = "Start the service with CMD (sh -c), stop it at the end; enables the kill scenario")
        private String launch;

        @Option(
                names = "--restart",
                paramLabel = "CMD",
                description = "A command that kills the service hard and starts it again; enables the kill scenario")
        private String restart;

        @Option(
                names = "--health",
                paramLabel = "PATH",
                description = "Ready when GET PATH answers 2xx (default: when the port accepts connections)")
        private String health;

        @Option(
                names = "--start-timeout",
                paramLabel = "TIME",
                converter = DurationConverter.class,
                description = "How long a (re)started service has to become ready (default: 180s)")
        private Duration startTimeout = Duration.ofSeconds(180);

        @Option(names = "--allow-remote", description = "Allow a target that is not a loopback address")
        private boolean allowRemote;

        @Mixin
        private OutputOptions output;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            HttpProbe probe;
            try {
                probe = Probe.http(url)
                        .method(method)
                        .body(text(body, "--body"))
                        .keyHeader(keyHeader)
                        .concurrency(concurrency)
                        .keys(keys)
                        .finalAnswerTimeout(finalAnswerTimeout)
                        .settle(settle, lostAfter)
                        .startTimeout(startTimeout)
                        .allowRemote(allowRemote)
                        .progress(line -> err.println(line));
                if (changedBody != null) {
                    probe.changedBody(text(changedBody, "--changed-body"));
                }
                for (String h : headers) {
                    int colon = h.indexOf(':');
                    if (colon <= 0) {
                        throw new ProbeInputException("--header: 'NAME: VALUE' expected, got: " + h);
                    }
                    probe.header(h.substring(0, colon), h.substring(colon + 1));
                }
                for (String sql : effects.sql) {
                    probe.effects(effects.jdbcUrl, sql);
                }
                if (cutAfter != null) {
                    probe.cutTimeouts(cutAfter.toArray(Duration[]::new));
                }
                if (killAfter != null) {
                    probe.killAfter(killAfter.toArray(Duration[]::new));
                }
                if (launch != null) {
                    probe.launch(launch, health);
                }
                if (restart != null) {
                    probe.restart(restart, health);
                }
                output.check();
            } catch (ProbeInputException e) {
                err.println("dupguard: " + e.getMessage());
                return DupguardCli.USAGE;
            }
            ProbeReport report;
            try {
                report = probe.run();
            } catch (ProbeInputException e) {
                err.println("dupguard: " + e.getMessage());
                return DupguardCli.USAGE;
            }
            return output.print(report, out, err);
        }

        /** {@code @file} is the file's content; anything else the text itself. */
        static String text(String value, String option) {
            if (value == null || !value.startsWith("@")) {
                return value;
            }
            Path file = Path.of(value.substring(1));
            try {
                return Files.readString(file, StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                throw new ProbeInputException(option + ": no file " + file);
            } catch (IOException e) {
                throw new ProbeInputException(option + ": cannot read " + file + ": " + e.getMessage());
            }
        }
    }
}

package io.dupguard.lab.cli;

import io.dupguard.lab.probe.HttpProbe;
import io.dupguard.lab.probe.Probe;
import io.dupguard.lab.probe.ProbeInputException;
import io.dupguard.lab.probe.ProbeReport;
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
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dupguard probe}: the lab pointed at the user's own running service. */
@Command(
        name = "probe",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Point the lab at your own running service and find out whether it takes each request once.",
        subcommands = ProbeCommand.Http.class,
        footer = {"", "More: docs/probe.md"})
final class ProbeCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return DupguardCli.USAGE;
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

        @Option(
                names = "--effects-jdbc-url",
                required = true,
                paramLabel = "URL",
                description = "The database the effects land in (PostgreSQL, MariaDB, H2)")
        private String jdbcUrl;

        @Option(
                names = "--effects-sql",
                required = true,
                paramLabel = "SQL",
                description =
                        "Counts one key's effects, with :key, e.g. \"select count(*) from payments where request_id"
                                + " = :key\"; repeatable (every query must count 1 per key)")
        private List<String> effectsSql = new ArrayList<>();

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

        @Option(names = "--json", description = "Print the verdicts as JSON instead of the table")
        private boolean json;

        @Option(names = "--html", paramLabel = "FILE", description = "Also write a self-contained HTML report")
        private Path html;

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
                for (String sql : effectsSql) {
                    probe.effects(jdbcUrl, sql);
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
                if (html != null
                        && html.toAbsolutePath().getParent() != null
                        && !Files.isDirectory(html.toAbsolutePath().getParent())) {
                    throw new ProbeInputException(
                            "--html: no directory " + html.toAbsolutePath().getParent());
                }
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

        /** {@code @file} is the file's content; anything else the text itself. */
        private static String text(String value, String option) {
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

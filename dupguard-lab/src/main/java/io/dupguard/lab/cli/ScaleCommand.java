package io.dupguard.lab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dupguard.lab.env.LabRedisServer;
import io.dupguard.lab.scale.RetainedState;
import io.dupguard.lab.scale.ScaleTarget;
import io.dupguard.lab.scale.ScaleTargets;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code dupguard scale}: the idempotency store with many retained keys (issue 17). */
@Command(
        name = "scale",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        sortOptions = false,
        description = {
            "What retained state costs the idempotency store: execute's throughput and latency on an empty store and"
                    + " with --keys records retained, the storage per key, and the purge of those records, expired,"
                    + " while the same load runs. Measures speed: run it on an idle machine.",
        },
        footer = {"", "More: docs/lab.md, \"Scale of retained state\""})
final class ScaleCommand implements Callable<Integer> {
    static final long MIN_KEYS = 1000;
    static final long MAX_KEYS = 100_000_000;
    private static final int MAX_CLIENTS = 256;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--keys",
            paramLabel = "N",
            description = "Records retained (default: ${DEFAULT-VALUE}; the study's figure is 10000000)")
    private long keys = 100_000;

    @Option(
            names = "--jdbc-url",
            paramLabel = "URL",
            description = "A PostgreSQL or MariaDB database to study (repeatable)")
    private List<String> jdbcUrls = new ArrayList<>();

    @Option(names = "--redis", description = "Also study Redis, on a redis-server the study starts for itself")
    private boolean redis;

    @Option(names = "--clients", paramLabel = "N", description = "Threads calling execute (default: ${DEFAULT-VALUE})")
    private int clients = 16;

    @Option(
            names = "--duration",
            paramLabel = "TIME",
            converter = DurationConverter.class,
            description = "Each load phase before the purge (default: 10s)")
    private Duration duration = Duration.ofSeconds(10);

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON")
    private Path json;

    @Option(
            names = "--surrogate-key",
            description = "Experiment (MariaDB/MySQL): the table clustered by an AUTO_INCREMENT id, with"
                    + " (scope, idem_key) as a unique secondary key, instead of the shipped layout")
    private boolean surrogateKey;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (keys < MIN_KEYS || keys > MAX_KEYS) {
            throw new ParameterException(
                    spec.commandLine(), "--keys must be between " + MIN_KEYS + " and " + MAX_KEYS + ", was " + keys);
        }
        if (clients < 1 || clients > MAX_CLIENTS) {
            throw new ParameterException(
                    spec.commandLine(), "--clients must be between 1 and " + MAX_CLIENTS + ", was " + clients);
        }
        if (jdbcUrls.isEmpty() && !redis) {
            throw new ParameterException(
                    spec.commandLine(), "give --jdbc-url (repeatable) and/or --redis: what to study");
        }
        if (redis && !LabRedisServer.available()) {
            throw new ParameterException(
                    spec.commandLine(), "--redis needs redis-server on the PATH (scripts/services installs it)");
        }
        List<RetainedState.StoreResult> results = new ArrayList<>();
        for (String url : jdbcUrls) {
            ScaleTarget target;
            try {
                target = ScaleTargets.jdbc(url, surrogateKey);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--jdbc-url: " + e.getMessage(), e);
            }
            try (target) {
                results.add(study(target, out));
            }
        }
        if (redis) {
            try (ScaleTarget target = ScaleTargets.redis()) {
                results.add(study(target, out));
            }
        }
        out.println();
        results.forEach(r -> print(r, out));
        if (json != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), results);
            out.println("json: " + json);
        }
        return DupguardCli.OK;
    }

    private RetainedState.StoreResult study(ScaleTarget target, PrintWriter out) throws Exception {
        return RetainedState.study(target, keys, clients, duration, line -> {
            spec.commandLine().getErr().println("scale: " + line);
            spec.commandLine().getErr().flush();
        });
    }

    private static void print(RetainedState.StoreResult r, PrintWriter out) {
        out.println(r.store() + String.format(Locale.ROOT, " - %,d records retained", r.keys()));
        out.println("  phase                   calls      ops/s     p50       p99       max   errors");
        row(out, "empty store", r.empty());
        row(out, "retained", r.retained());
        row(out, "during the purge", r.purge().during());
        out.printf(
                Locale.ROOT,
                "  retained vs empty: ops/s x%.2f, p99 x%.2f; during the purge vs retained: ops/s x%.2f, p99 x%.2f%n",
                r.retained().opsPerSec() / Math.max(r.empty().opsPerSec(), 1e-9),
                (double) r.retained().p99Micros() / Math.max(r.empty().p99Micros(), 1),
                r.purge().during().opsPerSec() / Math.max(r.retained().opsPerSec(), 1e-9),
                (double) r.purge().during().p99Micros() / Math.max(r.retained().p99Micros(), 1));
        out.printf(
                Locale.ROOT,
                "  storage: %.0f bytes per key (%,d -> %,d bytes; %s); filled in %.1f s%n",
                r.bytesPerKey(),
                r.bytesEmpty(),
                r.bytesFilled(),
                r.storageMeasure(),
                r.fillSeconds());
        out.println("  settled before the retained load: " + r.settled());
        out.printf(
                Locale.ROOT,
                "  purge: %,d records in %.1f s, %,.0f per second%s (%s)%n%n",
                r.purge().purged(),
                r.purge().seconds(),
                r.purge().purgedPerSec(),
                r.purge().left() == 0
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                "; %,d left to lazy expiry",
                                r.purge().left()),
                r.purge().how());
    }

    private static void row(PrintWriter out, String phase, RetainedState.Load l) {
        out.printf(
                Locale.ROOT,
                "  %-18s %,10d %,10.0f %7.2f ms %7.2f ms %7.1f ms %,7d%n",
                phase,
                l.calls(),
                l.opsPerSec(),
                l.p50Micros() / 1000.0,
                l.p99Micros() / 1000.0,
                l.maxMicros() / 1000.0,
                l.errors());
    }
}

package io.dupguard.lab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.fault.Fault;
import io.dupguard.lab.storm.Soak;
import io.dupguard.lab.storm.Storm;
import io.dupguard.lab.storm.StormSettings;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** {@code dupguard storm --soak}: runs {@link Soak} and prints its rounds and verdict. */
final class SoakRun {
    /** The workloads of a soak without {@code --workload}: those two instances can share. */
    static final List<String> WORKLOADS = List.of("payment", "account-binding", "form-submit");

    private static final double MB = 1024.0 * 1024.0;

    private SoakRun() {}

    static int run(
            CommandLine cmd,
            StormCommand storm,
            StormSettings settings,
            String jdbcUrl,
            String redisUrl,
            Path json,
            PrintWriter out)
            throws Exception {
        if (jdbcUrl == null || redisUrl == null) {
            throw new ParameterException(
                    cmd, "--soak needs --jdbc-url (PostgreSQL or MariaDB) and --redis-url: it soaks real servers");
        }
        List<Storm.Plan> plans = storm.soakPlans();
        LabEnvironment env;
        try {
            env = LabEnvironment.open(jdbcUrl, redisUrl);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd, e.getMessage(), e);
        }
        try (env) {
            List<Fault> faults = storm.soakFaults(env, out);
            List<Soak.Pair> pairs = Soak.pairs(plans, faults, env);
            if (pairs.isEmpty()) {
                throw new ParameterException(
                        cmd,
                        "--soak: no dupguard strategy of the workloads chosen can keep its promise under "
                                + faults.stream().map(Fault::name).collect(Collectors.joining(", ")));
            }
            out.printf(
                    Locale.ROOT,
                    "soak: %d strategy x fault pairs in turn for %s on %s + %s; %d clients, seed %d%n",
                    pairs.size(),
                    settings.duration(),
                    env.databaseLabel(),
                    env.redis().map(r -> r.label()).orElse(""),
                    settings.clients(),
                    settings.seed());
            out.flush();
            Soak.Result r = Soak.run(pairs, env, settings, line -> {
                out.println(line);
                out.flush();
            });
            print(r, out);
            if (json != null) {
                new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), r);
                out.println("json: " + json);
            }
            return r.ok() ? DupguardCli.OK : DupguardCli.INVARIANT_BROKEN;
        }
    }

    private static void print(Soak.Result r, PrintWriter out) {
        out.println();
        out.printf(
                Locale.ROOT,
                "soak: %,d requests in %d rounds, %.1f s (%,.0f/s); duplicates sent %,d (%.1f %%); duplicate effects %d;"
                        + " lost %d; errors %,d (allowed under faults)%n",
                r.requests(),
                r.rounds().size(),
                r.seconds(),
                r.requests() / Math.max(r.seconds(), 1e-9),
                r.duplicatesSent(),
                100 * r.duplicateShare(),
                r.duplicateEffects(),
                r.lost(),
                r.errors());
        long min = r.samples().stream()
                .mapToLong(Soak.Sample::heapAfterGcBytes)
                .min()
                .orElse(0);
        long max = r.samples().stream()
                .mapToLong(Soak.Sample::heapAfterGcBytes)
                .max()
                .orElse(0);
        out.printf(
                Locale.ROOT,
                "heap after GC: %.1f MB after round 1, %.1f MB after round %d (min %.1f, max %.1f): %s%n",
                r.before().heapAfterGcBytes() / MB,
                r.samples().get(r.samples().size() - 1).heapAfterGcBytes() / MB,
                r.samples().size(),
                min / MB,
                max / MB,
                r.heapFlat() ? "flat" : "GROWING");
        out.printf(
                Locale.ROOT,
                "threads %d -> %d, database sessions %d -> %d, Redis connections %d -> %d (after round 1 -> at the end): %s%n",
                r.before().threads(),
                r.after().threads(),
                r.before().dbSessions(),
                r.after().dbSessions(),
                r.before().redisConnections(),
                r.after().redisConnections(),
                r.leakFree() ? "no leak" : "LEAK");
        out.printf(
                Locale.ROOT,
                "targets: >= %,d requests %s, >= %.0f %% duplicates %s%n",
                Soak.TARGET_REQUESTS,
                r.requests() >= Soak.TARGET_REQUESTS ? "met" : "not met",
                100 * Soak.TARGET_DUPLICATE_SHARE,
                r.duplicateShare() >= Soak.TARGET_DUPLICATE_SHARE ? "met" : "not met");
        if (r.ok()) {
            out.println(
                    "ok: every round had 0 duplicate effects and 0 lost requests; the heap stayed flat; nothing leaked");
        } else {
            out.println("FAILED:"
                    + (r.invariantsHeld() ? "" : " a dupguard strategy broke an invariant (BROKEN rounds above);")
                    + (r.heapFlat() ? "" : " the heap after GC grew;")
                    + (r.leakFree() ? "" : " threads or connections leaked;"));
        }
    }
}

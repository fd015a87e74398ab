package io.dupguard.lab.cli;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.dedupe.ApplyResult;
import io.dupguard.jdbc.dedupe.Dedupe;
import io.dupguard.jdbc.dedupe.DedupeException;
import io.dupguard.jdbc.dedupe.GuardResult;
import io.dupguard.jdbc.dedupe.RestoreResult;
import io.dupguard.jdbc.dedupe.ScanReport;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code dupguard dedupe}: clean the duplicates a table already has, then add the unique key (guarantee
 * C1). Exit status: 0 the phase reached its goal; 1 it did not (a stopped apply, no valid index, a
 * database failure — the message says which; the open batch rolled back); 2 bad input, a missing
 * privilege or an unreachable server, nothing deleted; 3 an unexpected failure.
 */
@Command(
        name = "dedupe",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
            "Clean the duplicates a table already has, then add the unique key: online, throttled, nothing lost.",
            "scan (read-only) -> apply (batches; every deleted row copied to a backup table first; resumable)"
                    + " -> guard (unique index without blocking writers) ; restore puts a run's rows back."
        },
        footer = {"", "More: docs/dedupe.md"},
        subcommands = {
            DedupeCommand.Scan.class,
            DedupeCommand.Apply.class,
            DedupeCommand.Guard.class,
            DedupeCommand.Restore.class,
            DedupeCommand.All.class
        })
final class DedupeCommand implements Runnable {
    static final int GOAL_NOT_REACHED = 1;

    @Spec
    private CommandSpec spec;

    private final boolean terminal;

    DedupeCommand(boolean terminal) {
        this.terminal = terminal;
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "choose a phase: scan, apply, guard, restore or all");
    }

    /** Shared plumbing: open the database, map failures to exit statuses, write JSON. */
    abstract static class Phase implements java.util.concurrent.Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        DedupeOptions options;

        boolean terminal() {
            return ((DedupeCommand) spec.parent().userObject()).terminal;
        }

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        PrintWriter err() {
            return spec.commandLine().getErr();
        }

        abstract int run(HikariDataSource ds, Map<String, Object> json);

        /** Set by Ctrl-C (the JVM's shutdown); apply stops after the batch in progress. */
        final AtomicBoolean stop = new AtomicBoolean();

        @Override
        public Integer call() throws Exception {
            CountDownLatch finished = new CountDownLatch(1);
            Thread hook = new Thread(
                    () -> {
                        stop.set(true);
                        try {
                            // Let the batch in progress commit and the result be printed.
                            finished.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "dupguard-dedupe-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                return phase();
            } finally {
                finished.countDown();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // Ctrl-C: the hook is running and has just been released.
                }
            }
        }

        private int phase() {
            Map<String, Object> json = new LinkedHashMap<>();
            int status;
            try (HikariDataSource ds = options.open()) {
                status = run(ds, json);
            } catch (DedupeException e) {
                err().println("dupguard: " + e.getMessage());
                json.put("error", e.getMessage());
                status = e.isBadInput() ? DupguardCli.USAGE : GOAL_NOT_REACHED;
            } catch (IllegalArgumentException e) {
                err().println("dupguard: " + e.getMessage() + " (see '" + spec.qualifiedName() + " --help')");
                json.put("error", e.getMessage());
                status = DupguardCli.USAGE;
            }
            if (options.json != null) {
                json.put("exitStatus", status);
                DedupeOutput.writeJson(options.json, json);
                out().println("json: " + options.json);
            }
            return status;
        }

        /** Runs apply with a progress bar; Ctrl-C stops it after the batch in progress commits. */
        ApplyResult applyWithProgress(Dedupe dedupe) {
            try (DedupeOutput.ProgressBar bar = new DedupeOutput.ProgressBar(err(), terminal())) {
                return dedupe.apply(bar, stop::get);
            }
        }
    }

    @Command(
            name = "scan",
            mixinStandardHelpOptions = true,
            description = "Report the duplicate groups (read-only): groups, rows to delete, largest groups, a sample.")
    static final class Scan extends Phase {
        @Override
        int run(HikariDataSource ds, Map<String, Object> json) {
            ScanReport report = options.dedupe(ds).scan();
            DedupeOutput.print(report, out());
            json.put("scan", DedupeOutput.toJson(report));
            return DupguardCli.OK;
        }
    }

    @Command(
            name = "apply",
            mixinStandardHelpOptions = true,
            description = {
                "Delete the extras in throttled batches; each batch is one transaction that first copies the rows"
                        + " into the backup table. Continues a stopped run of the same table, key, comparison and keep"
                        + " rule. Ctrl-C stops after the batch in progress.",
                "Exits 0 when the run finished, 1 when it was stopped (run apply again to continue)."
            })
    static final class Apply extends Phase {
        @Option(names = "--dry-run", description = "Only report what would be deleted; write nothing")
        boolean dryRun;

        @Override
        int run(HikariDataSource ds, Map<String, Object> json) {
            Dedupe dedupe = options.dedupe(ds);
            ApplyResult result = dryRun ? dedupe.dryRun() : applyWithProgress(dedupe);
            DedupeOutput.print(result, out());
            json.put("apply", DedupeOutput.toJson(result));
            return result.finished() || result.dryRun() ? DupguardCli.OK : GOAL_NOT_REACHED;
        }
    }

    @Command(
            name = "guard",
            mixinStandardHelpOptions = true,
            description = {
                "Add the unique index without blocking writers (PostgreSQL CREATE UNIQUE INDEX CONCURRENTLY,"
                        + " MySQL/MariaDB ALGORITHM=INPLACE, LOCK=NONE), cleaning duplicates writers insert meanwhile.",
                "Exits 0 only when the unique index exists and is valid."
            })
    static final class Guard extends Phase {
        @Override
        int run(HikariDataSource ds, Map<String, Object> json) {
            GuardResult result = options.dedupe(ds).guard();
            DedupeOutput.print(result, out());
            json.put("guard", DedupeOutput.toJson(result));
            return result.valid() ? DupguardCli.OK : GOAL_NOT_REACHED;
        }
    }

    @Command(
            name = "restore",
            mixinStandardHelpOptions = true,
            description = "Put the rows a run deleted back (default: the newest applied run of the table).")
    static final class Restore extends Phase {
        @Option(names = "--run", paramLabel = "ID", description = "The run to restore (see the apply output)")
        String run;

        @Override
        int run(HikariDataSource ds, Map<String, Object> json) {
            RestoreResult result = options.dedupe(ds).restore(run);
            DedupeOutput.print(result, out());
            json.put("restore", DedupeOutput.toJson(result));
            return DupguardCli.OK;
        }
    }

    @Command(
            name = "all",
            mixinStandardHelpOptions = true,
            description = {"scan -> apply -> guard. Exits 0 only when the unique index exists and is valid at the end."
            })
    static final class All extends Phase {
        @Override
        int run(HikariDataSource ds, Map<String, Object> json) {
            Dedupe dedupe = options.dedupe(ds);
            ScanReport report = dedupe.scan();
            DedupeOutput.print(report, out());
            json.put("scan", DedupeOutput.toJson(report));
            if (report.groups() > 0) {
                ApplyResult applied = applyWithProgress(dedupe);
                DedupeOutput.print(applied, out());
                json.put("apply", DedupeOutput.toJson(applied));
                if (!applied.finished()) {
                    return GOAL_NOT_REACHED;
                }
            }
            GuardResult guard = dedupe.guard();
            DedupeOutput.print(guard, out());
            json.put("guard", DedupeOutput.toJson(guard));
            return guard.valid() ? DupguardCli.OK : GOAL_NOT_REACHED;
        }
    }
}

package io.dupguard.lab.cli;

import io.dupguard.lab.env.UnreachableException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code dupguard} command. Exit status: 0 all good; 1 a dupguard strategy broke an invariant;
 * 2 bad options or a server that cannot be reached (one line on stderr); 3 an unexpected failure.
 */
@Command(
        name = "dupguard",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Make an operation take effect once: the dupguard lab.",
        // `dupguard help` and `dupguard help storm`, the same as --help.
        subcommands = CommandLine.HelpCommand.class,
        footer = {"", "Start with: dupguard storm"})
public final class DupguardCli implements Callable<Integer> {
    public static final int OK = 0;
    public static final int INVARIANT_BROKEN = 1;
    public static final int USAGE = 2;
    public static final int FAILURE = 3;

    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.exit(run(args, out, System.err, System.console() != null));
    }

    /**
     * Runs the command line without exiting the JVM.
     *
     * @param terminal whether stderr is a terminal (progress bar) or not (one line per strategy)
     * @return the exit status
     */
    public static int run(String[] args, PrintStream out, PrintStream err, boolean terminal) {
        PrintWriter outWriter = new PrintWriter(out, true);
        PrintWriter errWriter = new PrintWriter(err, true);
        CommandLine cli = new CommandLine(new DupguardCli())
                .addSubcommand("storm", new StormCommand(terminal))
                .addSubcommand("dedupe", new DedupeCommand(terminal))
                .addSubcommand("retries", new RetriesCommand())
                .addSubcommand("scale", new ScaleCommand())
                .addSubcommand("console", new ConsoleCommand())
                .addSubcommand("probe", new ProbeCommand())
                .setOut(outWriter)
                .setErr(errWriter)
                .setParameterExceptionHandler((e, a) -> {
                    errWriter.println("dupguard: " + e.getMessage() + " (see '"
                            + e.getCommandLine().getCommandSpec().qualifiedName() + " --help')");
                    return USAGE;
                })
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    if (e instanceof UnreachableException) {
                        errWriter.println("dupguard: " + e.getMessage());
                        return USAGE;
                    }
                    errWriter.println("dupguard: unexpected failure: " + e);
                    e.printStackTrace(errWriter);
                    return FAILURE;
                });
        int status = cli.execute(args);
        outWriter.flush();
        errWriter.flush();
        return status;
    }

    /** Without a subcommand: say what there is. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return USAGE;
    }
}

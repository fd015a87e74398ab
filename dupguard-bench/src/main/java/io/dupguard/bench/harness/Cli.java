package io.dupguard.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import picocli.CommandLine;

/** Running a benchmark's picocli command, and its command line as the report shows it. */
public final class Cli {
    private Cli() {}

    /** A benchmark's body, given its parsed options; returns the exit code. */
    @FunctionalInterface
    public interface Body<T> {
        int run(T options) throws Exception;
    }

    /**
     * Parses {@code args} into {@code options} (a picocli {@code @Command}) and runs {@code body}
     * with them. {@code --help} prints the usage (exit 0); a bad option prints what is wrong, naming
     * the option, and the usage to stderr (exit 2).
     */
    public static <T> int run(T options, String[] args, Body<T> body) throws Exception {
        CommandLine cl = parser(options);
        try {
            cl.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            System.err.println(cl.getCommandName() + ": " + e.getMessage());
            System.err.println();
            cl.usage(System.err);
            return 2;
        }
        if (cl.isUsageHelpRequested()) {
            cl.usage(System.out);
            return 0;
        }
        return body.run(options);
    }

    /** Parses {@code args} into {@code options}; a bad option throws {@link CommandLine.ParameterException}. */
    public static <T> T parse(T options, String... args) {
        parser(options).parseArgs(args);
        return options;
    }

    private static CommandLine parser(Object options) {
        return new CommandLine(options)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setUsageHelpWidth(110);
    }

    /**
     * The command line as a shell would take it again: the script's name (system property {@code
     * dupguard.bench.command}, set by the script, else {@code fallback}), then the arguments quoted.
     */
    public static String commandLine(String fallback, String[] args) {
        StringBuilder sb = new StringBuilder(System.getProperty("dupguard.bench.command", fallback));
        for (String a : args) {
            sb.append(' ');
            if (a.isEmpty() || a.chars().anyMatch(c -> Character.isWhitespace(c) || "'\"$&;|<>*?".indexOf(c) >= 0)) {
                sb.append('\'').append(a.replace("'", "'\\''")).append('\'');
            } else {
                sb.append(a);
            }
        }
        return sb.toString();
    }

    /**
     * A one-table report — its command, its machine and {@code results} (the median of {@code
     * o.rounds()} rounds) — printed, and written to {@code o.out()} if given.
     */
    public static void publish(
            String command,
            Instant started,
            long startNanos,
            Map<String, String> machine,
            LoadOptions o,
            String results)
            throws IOException {
        publish(command, started, startNanos, machine, Map.of(), o, results);
    }

    /**
     * {@link #publish(String, Instant, long, Map, LoadOptions, String)} with a table of the servers
     * measured.
     *
     * @param command the command line as run
     * @param started when the run started
     * @param startNanos {@link System#nanoTime()} at the start
     * @param machine the machine table
     * @param servers the servers table; may be empty
     * @param o the run's options ({@code --out}, rounds, threads, duration)
     * @param results the results in Markdown
     * @throws IOException if {@code --out} cannot be written
     */
    public static void publish(
            String command,
            Instant started,
            long startNanos,
            Map<String, String> machine,
            Map<String, String> servers,
            LoadOptions o,
            String results)
            throws IOException {
        String md = Markdown.commandSection(command, started, Duration.ofNanos(System.nanoTime() - startNanos))
                + Markdown.machineSection(machine, servers)
                + "## Results (median of " + o.rounds() + " rounds, " + o.threads() + " threads, "
                + Markdown.duration(o.duration()) + " windows)\n\n" + results;
        System.out.println();
        System.out.println(md);
        if (o.out() != null) {
            Files.writeString(o.out(), md, StandardCharsets.UTF_8);
            log("wrote " + o.out().toAbsolutePath());
        }
    }

    /** A progress line on stdout, flushed at once. */
    public static void log(String line) {
        System.out.println(line);
        System.out.flush();
    }
}

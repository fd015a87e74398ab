package io.dupguard.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A main class run in a child JVM ({@code java -cp <this JVM's class path> <main>}), so a test can
 * kill it for real: a {@link Runtime#halt(int)} in the child ends the process, not a thread. Its
 * output goes to a log file; the JVM is tuned to start fast (C1 only, class data sharing, serial GC).
 */
public final class ChildJvm {
    private final Process process;
    private final Path log;

    private ChildJvm(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Starts {@code mainClass} with this JVM's java command and class path.
     *
     * @param log where its output (stdout and stderr) goes; its folder is created
     * @param jvmOptions options before the main class, e.g. {@code -Dname=value}
     * @param mainClass the class whose {@code main} runs
     * @param args the program arguments
     * @return the running child
     * @throws IOException if the process cannot start or its log folder cannot be made
     */
    public static ChildJvm start(Path log, List<String> jvmOptions, Class<?> mainClass, List<String> args)
            throws IOException {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(
                java,
                "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "-XX:+UseSerialGC",
                "-Xmx384m",
                "-cp",
                System.getProperty("java.class.path")));
        command.addAll(jvmOptions);
        command.add(mainClass.getName());
        command.addAll(args);
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new ChildJvm(p, log);
    }

    /**
     * The process id of the child.
     *
     * @return its pid
     */
    public long pid() {
        return process.pid();
    }

    /**
     * Whether the child still runs.
     *
     * @return true while it runs
     */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Where its output goes.
     *
     * @return the log file
     */
    public Path log() {
        return log;
    }

    /**
     * Waits for the child to end by itself (a crash point halts it).
     *
     * @param atMost how long to wait
     * @return its exit code
     * @throws AssertionError if it still runs after {@code atMost}
     * @throws InterruptedException if the wait is interrupted
     */
    public int awaitExit(Duration atMost) throws InterruptedException {
        if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the child JVM did not end within " + atMost + " (log: " + log + ")\n" + tail(80));
        }
        return process.exitValue();
    }

    /**
     * Writes a line to the child's standard input.
     *
     * @param line the line, without its end
     * @throws IOException if the child's input is closed (it ended)
     */
    public void send(String line) throws IOException {
        var in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Kills the child (SIGKILL) and waits for it to end. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The last lines of its log, for a failure report.
     *
     * @param lines how many
     * @return the lines, joined by newlines
     */
    public String tail(int lines) {
        return tail(log, lines);
    }

    /**
     * The last lines of a log, for a failure report.
     *
     * @param log the file
     * @param lines how many
     * @return the lines, joined by newlines
     */
    public static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.ISO_8859_1); // any bytes
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

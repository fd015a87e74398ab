package io.dupguard.examples.payments;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * The example service as a child JVM ({@code java -cp <this JVM's class path> PaymentsApplication}),
 * so a test can kill it for real: a {@link CrashPoints} halt ends the process, not a thread. Its
 * output goes to a log file; the JVM is tuned to start fast (C1 only, class data sharing).
 */
final class PaymentsProcess {
    private final Process process;
    private final Path log;
    private final int port;

    private PaymentsProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /**
     * Starts the service and waits until {@code /actuator/health} answers UP.
     *
     * @param log where its output goes
     * @param crashAt the {@code example.crash-at} value, or null for none
     * @param args Spring Boot arguments ({@code --name=value})
     */
    static PaymentsProcess start(Path log, String crashAt, List<String> args) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "-XX:+UseSerialGC",
                "-Xmx384m",
                "-cp",
                System.getProperty("java.class.path")));
        if (crashAt != null) {
            command.add("-Dexample.crash-at=" + crashAt);
        }
        command.add(PaymentsApplication.class.getName());
        command.add("--server.port=" + port);
        command.add("--spring.main.banner-mode=off");
        command.addAll(args);
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        PaymentsProcess app = new PaymentsProcess(p, log, port);
        try {
            app.awaitHealthy(Duration.ofSeconds(90));
        } catch (RuntimeException | Error e) {
            app.kill();
            throw e;
        }
        return app;
    }

    private void awaitHealthy(Duration atMost) {
        PaymentsClient client = client();
        Awaitility.await("the service on port " + port + " to report UP (log: " + log + ")")
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsInstanceOf(IOException.class)
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new AssertionError("the service exited with " + process.exitValue() + " while starting");
                    }
                    HttpResponse<String> r = client.send(
                            client.request("/actuator/health", null).GET().build());
                    return r.statusCode() == 200 && r.body().contains("\"UP\"");
                });
    }

    PaymentsClient client() {
        return new PaymentsClient(port);
    }

    Path log() {
        return log;
    }

    /**
     * Waits for the process to end by itself (a crash point halts it).
     *
     * @return its exit code
     * @throws AssertionError if it still runs after {@code atMost}
     */
    int awaitExit(Duration atMost) throws InterruptedException {
        if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the service did not halt within " + atMost + " (log: " + log + ")");
        }
        return process.exitValue();
    }

    /** Kills the process (SIGKILL) and waits for it to end. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The last {@code lines} lines of a log, for a failure report. */
    static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

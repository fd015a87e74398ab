package io.dupguard.examples.payments;

import io.dupguard.test.ChildJvm;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;

/**
 * The example service as a child JVM ({@link ChildJvm}: {@code java -cp <this JVM's class path>
 * PaymentsApplication}), so a test can kill it for real: a {@link CrashPoints} halt ends the process,
 * not a thread. Its output goes to a log file.
 */
final class PaymentsProcess {
    private final ChildJvm jvm;
    private final int port;

    private PaymentsProcess(ChildJvm jvm, int port) {
        this.jvm = jvm;
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
        List<String> arguments = new ArrayList<>(List.of("--server.port=" + port, "--spring.main.banner-mode=off"));
        arguments.addAll(args);
        PaymentsProcess app = new PaymentsProcess(
                ChildJvm.start(
                        log,
                        crashAt == null ? List.of() : List.of("-Dexample.crash-at=" + crashAt),
                        PaymentsApplication.class,
                        arguments),
                port);
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
        Awaitility.await("the service on port " + port + " to report UP (log: " + jvm.log() + ")")
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsInstanceOf(IOException.class)
                .until(() -> {
                    if (!jvm.isAlive()) {
                        throw new AssertionError(
                                "the service exited with " + jvm.awaitExit(Duration.ZERO) + " while starting");
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
        return jvm.log();
    }

    /**
     * Waits for the process to end by itself (a crash point halts it).
     *
     * @return its exit code
     * @throws AssertionError if it still runs after {@code atMost}
     */
    int awaitExit(Duration atMost) throws InterruptedException {
        return jvm.awaitExit(atMost);
    }

    /** Kills the process (SIGKILL) and waits for it to end. */
    void kill() {
        jvm.kill();
    }

    /** Prints the last lines of every log, for a failed test's report. */
    static void printTails(List<Path> logs) {
        for (Path log : logs) {
            System.out.println("===== " + log + " (last lines)\n" + tail(log, 150));
        }
    }

    /** The last {@code lines} lines of a log, for a failure report. */
    static String tail(Path log, int lines) {
        return ChildJvm.tail(log, lines);
    }
}

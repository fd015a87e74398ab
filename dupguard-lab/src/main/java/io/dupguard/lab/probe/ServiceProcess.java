package io.dupguard.lab.probe;

import io.dupguard.lab.env.UnreachableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The service under probe, when the probe may kill it: either a process it launched itself
 * ({@code --launch CMD}, killed with SIGKILL, process tree included, and launched again) or one a
 * command of the user's kills and restarts ({@code --restart CMD}). Ready when {@code health}
 * answers 2xx, or without a health path when its port accepts a connection; a message consumer,
 * which has no port of its own, when its broker-side check (a consumer on the queue, a new member
 * of the group) passes.
 */
final class ServiceProcess implements AutoCloseable {
    private final String launch;
    private final String restart;
    private final URI health;
    private final InetSocketAddress address;
    private final Duration startTimeout;
    private final Path log;
    private final Supplier<String> ready;
    private Process process;
    private int starts;

    ServiceProcess(String launch, String restart, URI health, InetSocketAddress address, Duration startTimeout)
            throws IOException {
        this(launch, restart, health, address, startTimeout, null);
    }

    /**
     * Without a health URI and an address, ready when {@code ready} answers null; what it answers
     * otherwise is the reason it is not.
     */
    ServiceProcess(
            String launch,
            String restart,
            URI health,
            InetSocketAddress address,
            Duration startTimeout,
            Supplier<String> ready)
            throws IOException {
        this.ready = ready;
        this.launch = launch;
        this.restart = restart;
        this.health = health;
        this.address = address;
        this.startTimeout = startTimeout;
        this.log = Files.createTempFile("dupguard-probe-service-", ".log");
    }

    /** The file the launched service's output goes to. */
    Path log() {
        return log;
    }

    /** Launches the service ({@code --launch}) and waits until it is ready. */
    void start() {
        if (launch != null) {
            try {
                process = new ProcessBuilder("/bin/sh", "-c", launch)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
            } catch (IOException e) {
                throw new UnreachableException("--launch: cannot run '" + launch + "': " + e.getMessage(), e);
            }
        }
        starts++;
        awaitReady();
    }

    /** Whether the probe launched the service (and so may stop and start it itself). */
    boolean launched() {
        return launch != null;
    }

    /** SIGKILL of the launched process tree; {@link #start()} launches it again. */
    void kill() {
        List<ProcessHandle> tree = process.descendants().toList();
        tree.forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor();
            for (ProcessHandle p : tree) {
                p.onExit().join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing the service", e);
        }
    }

    /** SIGKILL of the launched process tree and a new launch; or the user's restart command. */
    void killAndRestart() {
        if (launch != null) {
            kill();
            start();
        } else if (restart == null) {
            throw new IllegalStateException("neither --launch nor --restart");
        } else {
            restartCommand();
        }
    }

    private void restartCommand() {
        try {
            Process p = new ProcessBuilder("/bin/sh", "-c", restart)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            int status = p.waitFor();
            if (status != 0) {
                throw new IllegalStateException(
                        "--restart '" + restart + "' exited with " + status + "; its output: " + tail());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting the service", e);
        }
        starts++;
        awaitReady();
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + startTimeout.toNanos();
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        String last = "not tried";
        while (System.nanoTime() < deadline) {
            if (process != null && !process.isAlive()) {
                throw new UnreachableException(
                        "--launch: the service exited with " + process.exitValue()
                                + " before it was ready; its output: " + tail(),
                        null);
            }
            try {
                if (health == null && address == null) {
                    String notYet = ready.get();
                    if (notYet == null) {
                        return;
                    }
                    last = notYet;
                } else if (health == null) {
                    try (Socket s = new Socket()) {
                        s.connect(address, 1000);
                        return;
                    }
                } else {
                    HttpResponse<Void> r = client.send(
                            HttpRequest.newBuilder(health)
                                    .timeout(Duration.ofSeconds(5))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() / 100 == 2) {
                        return;
                    }
                    last = "GET " + health + " answered " + r.statusCode();
                }
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the service", e);
            }
            try {
                Thread.sleep(250); // polling a process we do not control; no event to wait on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the service", e);
            }
        }
        throw new UnreachableException(
                "the service was not ready within " + startTimeout.toSeconds() + " s (start " + starts
                        + "; last check: " + last + "); its output: " + tail(),
                null);
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(" + log + " unreadable: " + e.getMessage() + ")";
        }
    }

    /** Kills a launched service (SIGKILL, as at the end of a test deployment's run); a restarted one stays. */
    @Override
    public void close() {
        if (process != null) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}

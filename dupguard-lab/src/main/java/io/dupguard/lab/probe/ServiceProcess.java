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

/**
 * The service under probe, when the probe may kill it: either a process it launched itself
 * ({@code --launch CMD}, killed with SIGKILL, process tree included, and launched again) or one a
 * command of the user's kills and restarts ({@code --restart CMD}). Ready when {@code health}
 * answers 2xx, or without a health path when its port accepts a connection.
 */
final class ServiceProcess implements AutoCloseable {
    private final String launch;
    private final String restart;
    private final URI health;
    private final InetSocketAddress address;
    private final Duration startTimeout;
    private final Path log;
    private Process process;
    private int starts;

    ServiceProcess(String launch, String restart, URI health, InetSocketAddress address, Duration startTimeout)
            throws IOException {
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

    /** SIGKILL of the launched process tree and a new launch; or the user's restart command. */
    void killAndRestart() {
        if (launch != null) {
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
            start();
        } else {
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
                if (health == null) {
                    try (Socket s = new Socket()) {
                        s.connect(address, 1000);
                        return;
                    }
                }
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

package io.dupguard.spring.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A throwaway redis-server (or Sentinel) process on a free loopback port, started by a test and
 * killed by it; its log is in its own directory. A missing binary fails the test.
 */
final class RedisProcess implements AutoCloseable {
    final int port;
    final Path dir;
    private final Process process;
    private final Path log;

    private RedisProcess(int port, Path dir, Process process, Path log) {
        this.port = port;
        this.dir = dir;
        this.process = process;
        this.log = log;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * Starts {@code redis-server} with {@code args} (plus a log file and no persistence), and waits
     * until its log contains {@code ready}.
     */
    static RedisProcess start(Path dir, int port, String ready, List<String> args) throws IOException {
        Path log = dir.resolve("redis-" + port + ".log");
        List<String> command = new ArrayList<>();
        command.add("/usr/bin/redis-server");
        command.addAll(args);
        command.addAll(List.of("--logfile", log.toString(), "--dir", dir.toString()));
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis-" + port + ".out").toFile())
                .start();
        RedisProcess r = new RedisProcess(port, dir, p, log);
        try {
            Awaitility.await("redis-server on " + port + " (" + log + ")")
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        if (!p.isAlive()) {
                            throw new IllegalStateException("redis-server exited with " + p.exitValue() + ": "
                                    + Files.readString(dir.resolve("redis-" + port + ".out")) + r.logText());
                        }
                        return r.logText().contains(ready);
                    });
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
        return r;
    }

    /** A plain master: no persistence, loopback only. */
    static RedisProcess server(Path dir, List<String> extra) throws IOException {
        int port = freePort();
        List<String> args = new ArrayList<>(
                List.of("--port", String.valueOf(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"));
        args.addAll(extra);
        return start(dir, port, "Ready to accept connections", args);
    }

    String logText() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package io.dupguard.spring.autoconfigure;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.awaitility.Awaitility;

/**
 * A throwaway redis-server (or Sentinel) process on a free loopback port, started by a test and
 * killed by it; its log is in its own directory. A missing binary fails the test. Public for the
 * listener ITs of other packages, which pause their own server to cut the store off.
 */
public final class RedisProcess implements AutoCloseable {
    /** The port it listens on, on 127.0.0.1. */
    public final int port;

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

    /**
     * A plain master: no persistence, loopback only.
     *
     * @param dir where its log goes
     * @param extra more {@code redis-server} arguments
     * @return the running server; close it
     * @throws IOException if it cannot be started
     */
    public static RedisProcess server(Path dir, List<String> extra) throws IOException {
        int port = freePort();
        List<String> args = new ArrayList<>(
                List.of("--port", String.valueOf(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"));
        args.addAll(extra);
        return start(dir, port, "Ready to accept connections", args);
    }

    String logText() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /**
     * Pauses every client of this server for {@code duration} ({@code CLIENT PAUSE … ALL}), a real
     * stall: commands queue on the server, clients with a shorter command timeout give up, and the
     * queued commands run, in order, when the pause ends by itself ({@code CLIENT UNPAUSE} would
     * wait behind it).
     *
     * @param duration how long
     */
    public void pause(Duration duration) {
        String reply = admin(c -> c.clientPause(duration.toMillis()));
        if (!"OK".equals(reply)) {
            throw new IllegalStateException("CLIENT PAUSE on port " + port + " answered " + reply);
        }
    }

    /**
     * How many times this server has run {@code name} ({@code INFO commandstats}).
     *
     * @param name a command as commandstats names it, lower case: {@code get}, {@code evalsha}
     * @return its calls, 0 if it never ran
     */
    public long calls(String name) {
        String prefix = "cmdstat_" + name + ":calls=";
        for (String line : admin(c -> c.info("commandstats")).split("\r\n")) {
            if (line.startsWith(prefix)) {
                int end = line.indexOf(',', prefix.length());
                return Long.parseLong(line.substring(prefix.length(), end < 0 ? line.length() : end));
            }
        }
        return 0;
    }

    /** One command on a connection of its own, so that no paused connection of a test is reused. */
    private <T> T admin(Function<RedisCommands<String, String>, T> command) {
        RedisClient client = RedisClient.create(RedisURI.create(url()));
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return command.apply(c.sync());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
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

package io.dupguard.lab.env;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} the lab starts itself on a free loopback port, for the Redis-restart
 * fault: it may kill it (SIGKILL, as a crash) and start it again on the same port and directory,
 * with or without an append-only file that is fsynced on every write.
 */
public final class LabRedisServer implements AutoCloseable {
    private final int port;
    private final Path dir;
    private final boolean persistent;
    private Process process;

    /**
     * Starts one.
     *
     * @throws IOException if {@code redis-server} is not on the PATH or does not start
     */
    public LabRedisServer(boolean persistent) throws IOException {
        this.persistent = persistent;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        dir = Files.createTempDirectory("dupguard-lab-redis");
        start();
    }

    /** Whether {@code redis-server} can be run here. */
    public static boolean available() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String d : path.split(java.io.File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "redis-server"))) {
                return true;
            }
        }
        return false;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** Starts the server and waits until it answers PING (its data reloaded, if persistent). */
    public synchronized void start() throws IOException {
        List<String> command = command(port, dir);
        if (persistent) {
            command.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
        } else {
            command.addAll(List.of("--appendonly", "no"));
        }
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!pong()) {
            if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                throw new IOException(
                        "redis-server on port " + port + " did not start; see " + dir.resolve("redis.log"));
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** {@code redis-server} on {@code port} of 127.0.0.1, no RDB snapshots, files in {@code dir}. */
    static List<String> command(int port, Path dir) {
        return new ArrayList<>(List.of(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--dir",
                dir.toString()));
    }

    /** Kills the server as a crash would (SIGKILL) and waits until it is gone. */
    public synchronized void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public synchronized void close() throws IOException {
        try {
            kill();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private boolean pong() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            s.setSoTimeout(500);
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] buf = new byte[7];
            int n = s.getInputStream().read(buf);
            return n > 0 && new String(buf, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false; // not up yet, or still loading its append-only file
        }
    }
}

package io.dupguard.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private redis-server on a free loopback port that a test may kill and restart, so outage tests
 * never disturb the shared server other tests use. Needs {@code redis-server} on the PATH (which
 * {@code scripts/services} installs); without it the test fails, it does not skip.
 */
final class ThrowawayRedis implements AutoCloseable {
    private final int port;
    private final Path dir;
    private Process process;

    private final List<String> extraArgs;

    ThrowawayRedis() throws IOException {
        this(List.of());
    }

    /** A server started with extra {@code redis-server} arguments (e.g. an eviction policy). */
    ThrowawayRedis(List<String> extraArgs) throws IOException {
        this.extraArgs = List.copyOf(extraArgs);
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        dir = Files.createTempDirectory("dupguard-redis-it");
        start();
    }

    int port() {
        return port;
    }

    String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** Starts the server (no persistence, so a restart comes back empty) and waits for PING. */
    void start() throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString()));
        command.addAll(extraArgs);
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!pong()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IOException(
                        "redis-server on port " + port + " did not start; see " + dir.resolve("redis.log"));
            }
            sleep(50);
        }
    }

    /** Kills the server the way a crash would (SIGKILL), and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException, IOException {
        kill();
        try (var files = Files.list(dir)) { // the log, and a replica's dump.rdb
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(dir);
    }

    /**
     * Pauses every client of this server for {@code duration} ({@code CLIENT PAUSE … ALL}), a real
     * stall: commands queue on the server while clients with a shorter timeout give up.
     */
    void pause(Duration duration) {
        pause("127.0.0.1", port, duration);
    }

    /** Pauses every client of the server at {@code host:port} for {@code duration}. */
    static void pause(String host, int port, Duration duration) {
        command(host, port, "CLIENT PAUSE " + duration.toMillis() + " ALL");
    }

    /** Sends one inline command to the server at {@code host:port} and fails unless it answers OK. */
    static void command(String host, int port, String command) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 1000);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] buf = new byte[64];
            int n = s.getInputStream().read(buf);
            String reply = n > 0 ? new String(buf, 0, n, StandardCharsets.US_ASCII) : "";
            if (!reply.startsWith("+OK")) {
                throw new IllegalStateException(command + " on " + host + ":" + port + " answered " + reply);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot send " + command + " to Redis at " + host + ":" + port, e);
        }
    }

    private boolean pong() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            s.setSoTimeout(500);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[7];
            int n = in.read(buf);
            return n > 0 && new String(buf, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

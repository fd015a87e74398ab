package io.dupguard.bench.lock;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Counts the commands Redis receives, by name, through {@code MONITOR} on a plain socket. Only
 * top-level commands (what a client sends, one per round trip unless pipelined) are counted; the
 * commands a Lua script runs ({@code [0 lua]} lines) are not. Every client of the server is seen,
 * so the counts are exact only while nothing else talks to Redis; the audit runs single-threaded
 * and the counts are divided by its lock cycles.
 */
final class RedisMonitor implements AutoCloseable {
    private final Socket socket;
    private final Thread reader;
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private volatile boolean counting;
    private volatile String awaitedMark;
    private final Object markSeen = new Object();

    RedisMonitor(String host, int port) throws IOException {
        socket = new Socket(host, port);
        socket.setTcpNoDelay(true);
        OutputStream out = socket.getOutputStream();
        out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in =
                new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8), 1 << 16);
        String ok = in.readLine();
        if (ok == null || !ok.startsWith("+OK")) {
            socket.close();
            throw new IOException("MONITOR refused: " + ok);
        }
        reader = new Thread(() -> read(in), "bench-redis-monitor");
        reader.setDaemon(true);
        reader.start();
    }

    private void read(BufferedReader in) {
        try {
            String line;
            while ((line = in.readLine()) != null) {
                onLine(line);
            }
        } catch (IOException e) {
            // closed
        }
    }

    // +1700000000.123456 [0 127.0.0.1:51374] "evalsha" "..." ...   (script calls: [0 lua])
    private void onLine(String line) {
        int close = line.indexOf(']');
        int open = line.indexOf('[');
        if (open < 0 || close < 0) {
            return;
        }
        boolean lua = line.substring(open, close).endsWith(" lua");
        int q1 = line.indexOf('"', close);
        int q2 = q1 < 0 ? -1 : line.indexOf('"', q1 + 1);
        if (q2 < 0) {
            return;
        }
        String command = line.substring(q1 + 1, q2).toUpperCase(Locale.ROOT);
        String mark = awaitedMark;
        if (mark != null && command.equals("ECHO") && line.contains(mark)) {
            synchronized (markSeen) {
                awaitedMark = null;
                markSeen.notifyAll();
            }
            return;
        }
        if (counting && !lua) {
            counts.computeIfAbsent(command, k -> new LongAdder()).increment();
        }
    }

    /**
     * Sends {@code ECHO mark} through {@code echo} (any other connection) and waits until the monitor
     * has seen it: every command sent before it has then been counted.
     */
    private void sync(Consumer<String> echo, String mark) throws InterruptedException {
        synchronized (markSeen) {
            awaitedMark = mark;
        }
        echo.accept(mark);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        synchronized (markSeen) {
            while (awaitedMark != null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("MONITOR did not see the mark " + mark);
                }
                TimeUnit.NANOSECONDS.timedWait(markSeen, left);
            }
        }
    }

    void start(Consumer<String> echo) throws InterruptedException {
        sync(echo, "bench-audit-start-" + System.nanoTime());
        counts.clear();
        counting = true;
    }

    Map<String, Long> stop(Consumer<String> echo) throws InterruptedException {
        sync(echo, "bench-audit-stop-" + System.nanoTime());
        counting = false;
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}

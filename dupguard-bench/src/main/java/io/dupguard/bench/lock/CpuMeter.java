package io.dupguard.bench.lock;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * CPU time used by this JVM and by the server processes of one store (from {@code /proc}), so that a
 * run can say how much CPU one lock cycle costs on each side and how many of the machine's cores were
 * busy. The server side counts every process of the server, so it is exact only while nothing else
 * uses that server; ZooKeeper runs inside this JVM and has no server side of its own.
 */
final class CpuMeter {
    private static final long NANOS_PER_TICK = 1_000_000_000L / clockTicksPerSecond();

    private final String server;
    private final Predicate<String> isServer;

    /** CPU time at one moment: this JVM in nanoseconds, each server process in clock ticks. */
    record Sample(long jvmNanos, Map<Long, Long> serverTicks) {}

    private CpuMeter(String server, Predicate<String> isServer) {
        this.server = server;
        this.isServer = isServer;
    }

    /** The meter of a store: its server processes recognised by their command line. */
    static CpuMeter forStore(String title, int redisPort) {
        return switch (title) {
            case "PostgreSQL" -> new CpuMeter("postgres", line -> line.startsWith("postgres"));
            case "MariaDB" ->
                new CpuMeter("mariadbd", line -> line.startsWith("mariadbd") || line.startsWith("mysqld"));
            case "Redis" ->
                new CpuMeter("redis-server", line -> line.startsWith("redis-server") && line.contains(":" + redisPort));
            default -> new CpuMeter(null, cmd -> false);
        };
    }

    /** Whether the server side is measured (false: the server runs in this JVM). */
    boolean measuresServer() {
        return server != null;
    }

    Sample sample() {
        long jvm = jvmCpuNanos();
        Map<Long, Long> ticks = new HashMap<>();
        if (server != null) {
            try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
                procs.forEach(p -> {
                    String pid = p.getFileName().toString();
                    if (!pid.chars().allMatch(Character::isDigit)) {
                        return;
                    }
                    try {
                        String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8)
                                .replace('\0', ' ')
                                .strip();
                        // "/usr/sbin/mariadbd …", "postgres: 15/main: postgres test …", "redis-server 127.0.0.1:6379"
                        String first = cmd.split(" ", 2)[0];
                        String line = first.substring(first.lastIndexOf('/') + 1) + cmd.substring(first.length());
                        if (!cmd.isEmpty() && isServer.test(line)) {
                            ticks.put(Long.parseLong(pid), ticks(p.resolve("stat")));
                        }
                    } catch (IOException | RuntimeException e) {
                        // the process ended meanwhile
                    }
                });
            } catch (IOException e) {
                // no /proc: the server side stays unmeasured
            }
        }
        return new Sample(jvm, ticks);
    }

    /** Nanoseconds of server CPU between two samples (processes that ended meanwhile are lost). */
    static long serverNanos(Sample from, Sample to) {
        long ticks = 0;
        for (Map.Entry<Long, Long> e : to.serverTicks().entrySet()) {
            ticks += Math.max(0, e.getValue() - from.serverTicks().getOrDefault(e.getKey(), 0L));
        }
        return ticks * NANOS_PER_TICK;
    }

    // utime + stime, the 14th and 15th fields; the 2nd (the command) may contain spaces.
    private static long ticks(Path stat) throws IOException {
        String s = Files.readString(stat, StandardCharsets.US_ASCII);
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    private static long jvmCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    private static long clockTicksPerSecond() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            if (p.waitFor() == 0) {
                return Long.parseLong(out);
            }
        } catch (IOException | RuntimeException e) {
            // the usual value below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 100;
    }
}

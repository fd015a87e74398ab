package io.dupguard.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Supplier;

/**
 * The one CPU probe of every benchmark ({@link #probe}): CPU used during a measured window by this
 * JVM, by the store's server processes and by every other process, from {@code /proc} (Linux only;
 * elsewhere it reports nothing). The servers are recognised by process name (and, for Redis on a
 * machine with several, by port: {@link #redisOnPort}). On a 2-core machine shared with builds and
 * tests the foreign share is what makes a round unrepresentative, so reports show it next to every
 * round.
 *
 * <p>The database servers are shared too: other work's tests run queries on them. So the server
 * threads that serve <em>other</em> clients' connections ({@link #otherClients}, set while a SQL
 * store is measured: PostgreSQL backends and MariaDB connection threads not of the bench's pool)
 * count as foreign, not as server CPU; what remains is the bench's own connections plus the
 * servers' background work (WAL/redo writers, checkpointer, purge), which other writers still
 * share.
 */
public final class ForeignLoad {
    private static final Set<String> SERVERS = Set.of("postgres", "mariadbd", "mysqld", "redis-server");
    private static final Path PROC = Path.of("/proc");

    /** Every database server and Redis, recognised by process name. */
    public static final BiPredicate<String, Path> ANY_SERVER = (comm, dir) -> SERVERS.contains(comm);

    /** No server process (the store runs in this JVM, or there is none). */
    public static final BiPredicate<String, Path> NO_SERVER = (comm, dir) -> false;

    /**
     * Thread/process ids of server tasks serving other clients; null: count every server task. Set
     * while a SQL store is measured.
     */
    public static volatile Supplier<Set<Long>> otherClients;

    private final long busyTicks;
    private final Map<Long, Long> ownTicks;
    private final long nanos;
    private final boolean filtered;

    private ForeignLoad(long busyTicks, Map<Long, Long> ownTicks, long nanos, boolean filtered) {
        this.busyTicks = busyTicks;
        this.ownTicks = ownTicks;
        this.nanos = nanos;
        this.filtered = filtered;
    }

    /** The probe that counts {@link #ANY_SERVER} as the servers. */
    public static CpuProbe probe() {
        return probe(ANY_SERVER);
    }

    /**
     * A probe: this JVM, the server processes {@code isServer} accepts (given the process name and
     * its /proc directory), and everything else as foreign.
     */
    public static CpuProbe probe(BiPredicate<String, Path> isServer) {
        return () -> {
            ForeignLoad start = now(isServer);
            return () -> {
                CpuUsage u = between(start, now(isServer));
                // No server process: "not measured", not "0".
                return isServer == NO_SERVER
                        ? new CpuUsage(u.selfSeconds(), Double.NaN, u.foreignShare(), u.seconds())
                        : u;
            };
        };
    }

    /** Redis on one port only (the cluster and Redlock servers on the same machine are foreign). */
    public static BiPredicate<String, Path> redisOnPort(int port) {
        return (comm, dir) -> {
            if (!comm.equals("redis-server")) {
                return false;
            }
            try {
                String cmd = new String(Files.readAllBytes(dir.resolve("cmdline")), StandardCharsets.UTF_8);
                return cmd.contains(":" + port);
            } catch (IOException gone) {
                return false;
            }
        };
    }

    /** A snapshot now, or null where /proc cannot be read. */
    static ForeignLoad now(BiPredicate<String, Path> isServer) {
        // A snapshot walks every process and takes a while on a loaded machine (tens of ms); its
        // moment is the middle of the walk, so that the CPU window matches the measured one on average.
        long walkStart = System.nanoTime();
        try {
            List<String> stat = Files.readAllLines(PROC.resolve("stat"), StandardCharsets.UTF_8);
            String[] cpu = stat.get(0).trim().split("\\s+");
            long busy = 0;
            // user nice system idle iowait irq softirq steal: user, nice, system and steal are busy.
            // Interrupt time is left out: it belongs to no process, and on loopback most of it is the
            // benchmark's own network traffic.
            for (int i : new int[] {1, 2, 3, 8}) {
                if (i < cpu.length) {
                    busy += Long.parseLong(cpu[i]);
                }
            }
            long self = ProcessHandle.current().pid();
            Supplier<Set<Long>> others = otherClients;
            Set<Long> excluded = others == null ? Set.of() : others.get();
            Map<Long, Long> own = new HashMap<>();
            try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, "[0-9]*")) {
                for (Path dir : dirs) {
                    long pid = Long.parseLong(dir.getFileName().toString());
                    String line;
                    try {
                        line = Files.readString(dir.resolve("stat"), StandardCharsets.UTF_8);
                    } catch (IOException gone) {
                        continue;
                    }
                    int open = line.indexOf('(');
                    int close = line.lastIndexOf(')');
                    if (open < 0 || close < open) {
                        continue;
                    }
                    String comm = line.substring(open + 1, close);
                    if (pid != self && !isServer.test(comm, dir)) {
                        continue;
                    }
                    if (pid == self || others == null) {
                        own.put(pid, ticks(line, close));
                        continue;
                    }
                    // Per thread (MariaDB serves each connection on a thread of its own), without
                    // the tasks that serve other clients.
                    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(dir.resolve("task"), "[0-9]*")) {
                        for (Path task : tasks) {
                            long tid = Long.parseLong(task.getFileName().toString());
                            if (excluded.contains(tid)) {
                                continue;
                            }
                            String t;
                            try {
                                t = Files.readString(task.resolve("stat"), StandardCharsets.UTF_8);
                            } catch (IOException gone) {
                                continue;
                            }
                            own.put(tid, ticks(t, t.lastIndexOf(')')));
                        }
                    } catch (IOException gone) {
                        // the process ended
                    }
                }
            }
            return new ForeignLoad(busy, own, walkStart + (System.nanoTime() - walkStart) / 2, others != null);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** utime + stime of a /proc stat line whose "(comm)" ends at {@code close}. */
    private static long ticks(String line, int close) {
        String[] f = line.substring(close + 2).split(" ");
        // after "(comm) ": state=0 ... utime=11 stime=12
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /**
     * CPU used between two snapshots, in seconds: by this JVM, by the database servers, and by every
     * other process ({@code foreignShare} as a share of the machine, 0–1). NaN where unknown.
     */
    static CpuUsage between(ForeignLoad start, ForeignLoad end) {
        if (start == null || end == null) {
            return CpuUsage.UNKNOWN;
        }
        long self = ProcessHandle.current().pid();
        long selfTicks = 0;
        long serverTicks = 0;
        for (Map.Entry<Long, Long> e : end.ownTicks.entrySet()) {
            Long before = start.ownTicks.get(e.getKey());
            if (before == null && start.filtered) {
                // Not a known server task at the start (new, or serving another client then): its
                // ticks since it started are not this window's, and may be someone else's.
                continue;
            }
            long d = e.getValue() - (before == null ? 0 : before);
            if (e.getKey() == self) {
                selfTicks += d;
            } else {
                serverTicks += d;
            }
        }
        long foreign = (end.busyTicks - start.busyTicks) - selfTicks - serverTicks;
        double seconds = (end.nanos - start.nanos) / 1e9;
        // /proc counts in USER_HZ, 100 per second on Linux
        double capacity = seconds * 100 * Runtime.getRuntime().availableProcessors();
        if (capacity <= 0) {
            return CpuUsage.UNKNOWN;
        }
        return new CpuUsage(
                selfTicks / 100.0, serverTicks / 100.0, Math.max(0, Math.min(1, foreign / capacity)), seconds);
    }
}

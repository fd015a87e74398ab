package io.dupguard.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How much CPU processes other than this JVM and the database servers used during a run, from
 * {@code /proc} (Linux only; elsewhere it reports nothing). The servers are recognised by process
 * name. On a 2-core machine shared with builds and tests this is what makes a round unrepresentative,
 * so the report shows it next to every round.
 */
final class ForeignLoad {
    private static final Set<String> SERVERS = Set.of("postgres", "mariadbd", "mysqld", "redis-server");
    private static final Path PROC = Path.of("/proc");

    private final long busyTicks;
    private final Map<Long, Long> ownTicks;
    private final long nanos;

    private ForeignLoad(long busyTicks, Map<Long, Long> ownTicks, long nanos) {
        this.busyTicks = busyTicks;
        this.ownTicks = ownTicks;
        this.nanos = nanos;
    }

    /** A snapshot now, or null where /proc cannot be read. */
    static ForeignLoad now() {
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
                    if (pid != self && !SERVERS.contains(comm)) {
                        continue;
                    }
                    String[] f = line.substring(close + 2).split(" ");
                    // after "(comm) ": state=0 ... utime=11 stime=12
                    own.put(pid, Long.parseLong(f[11]) + Long.parseLong(f[12]));
                }
            }
            return new ForeignLoad(busy, own, System.nanoTime());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * CPU used between two snapshots, in seconds: by this JVM, by the database servers, and by every
     * other process ({@code foreignShare} as a share of the machine, 0–1). NaN where unknown.
     */
    record Usage(double selfSeconds, double serverSeconds, double foreignShare) {
        static final Usage UNKNOWN = new Usage(Double.NaN, Double.NaN, Double.NaN);
    }

    static Usage between(ForeignLoad start, ForeignLoad end) {
        if (start == null || end == null) {
            return Usage.UNKNOWN;
        }
        long self = ProcessHandle.current().pid();
        long selfTicks = 0;
        long serverTicks = 0;
        for (Map.Entry<Long, Long> e : end.ownTicks.entrySet()) {
            Long before = start.ownTicks.get(e.getKey());
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
            return Usage.UNKNOWN;
        }
        return new Usage(selfTicks / 100.0, serverTicks / 100.0, Math.max(0, Math.min(1, foreign / capacity)));
    }
}

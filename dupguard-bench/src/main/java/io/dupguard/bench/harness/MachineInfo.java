package io.dupguard.bench.harness;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What the report says about the machine; every value read live, "?" where it cannot be. */
public final class MachineInfo {
    /** The key of the load average when {@link #collect()} ran. */
    public static final String LOAD_AT_START = "Load average 1/5/15 min at start";

    private MachineInfo() {}

    public static Map<String, String> collect() {
        Map<String, String> info = new LinkedHashMap<>();
        int nproc = Runtime.getRuntime().availableProcessors();
        info.put("CPU", cpuModel() + " — nproc " + nproc);
        info.put("Memory", memory());
        info.put(
                "OS",
                os() + ", kernel " + System.getProperty("os.version") + " (" + System.getProperty("os.arch") + ")");
        info.put("Java", javaVersion());
        info.put(
                "dupguard",
                "commit " + System.getProperty("dupguard.bench.commit", "unknown (not run by scripts/bench)"));
        info.put(LOAD_AT_START, loadAverage());
        info.put(
                "JVM flags",
                String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        return info;
    }

    /** The 1, 5 and 15 minute load averages: anything else running on the machine shows here. */
    public static String loadAverage() {
        List<String> l = lines(Path.of("/proc/loadavg"));
        if (l.isEmpty()) {
            return "?";
        }
        String[] parts = l.get(0).trim().split("\\s+");
        return parts.length >= 3 ? parts[0] + " / " + parts[1] + " / " + parts[2] : l.get(0);
    }

    static String cpuModel() {
        for (String line : lines(Path.of("/proc/cpuinfo"))) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return System.getProperty("os.arch", "?");
    }

    static String memory() {
        for (String line : lines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemTotal:")) {
                String[] parts = line.substring("MemTotal:".length()).trim().split("\\s+");
                try {
                    double gib = Long.parseLong(parts[0]) / 1024.0 / 1024.0;
                    return String.format(Locale.ROOT, "%.1f GiB", gib);
                } catch (NumberFormatException e) {
                    return line;
                }
            }
        }
        return "?";
    }

    static String os() {
        for (String line : lines(Path.of("/etc/os-release"))) {
            if (line.startsWith("PRETTY_NAME=")) {
                return line.substring("PRETTY_NAME=".length()).replace("\"", "");
            }
        }
        return System.getProperty("os.name", "?");
    }

    /** The first lines of {@code java -version} of the running JVM, joined. */
    static String javaVersion() {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        try {
            Process p = new ProcessBuilder(java.toString(), "-version")
                    .redirectErrorStream(true)
                    .start();
            byte[] out = p.getInputStream().readAllBytes();
            if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
                return String.join(
                        " / ",
                        new String(out, StandardCharsets.UTF_8).strip().lines().toList());
            }
        } catch (IOException e) {
            // fall through to the properties
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
    }

    private static List<String> lines(Path p) {
        try {
            return Files.readAllLines(p, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}

package io.dupguard.lab.fault;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The faults the lab knows, by name. */
public final class Faults {
    private static final Map<String, Fault> ALL = new LinkedHashMap<>();

    static {
        for (Fault f : new Fault[] {
            new StoreStall(),
            new ConnectionKill(),
            new RedisRestart(false),
            new RedisRestart(true),
            new InstanceCrash(),
            new ReplicaLag()
        }) {
            ALL.put(f.name(), f);
        }
    }

    private Faults() {}

    /** Every fault, in report order. */
    public static List<Fault> all() {
        return List.copyOf(ALL.values());
    }

    /**
     * The faults named, or all of them for {@code all}.
     *
     * @throws IllegalArgumentException naming an unknown fault and the known ones
     */
    public static List<Fault> parse(List<String> names) {
        List<Fault> out = new ArrayList<>();
        for (String name : names) {
            if (name.equals("all")) {
                return all();
            }
            Fault f = ALL.get(name);
            if (f == null) {
                throw new IllegalArgumentException(
                        "unknown fault '" + name + "'; known: " + String.join(", ", ALL.keySet()) + ", all");
            }
            if (!out.contains(f)) {
                out.add(f);
            }
        }
        return out;
    }

    /** Parks until {@code deadline} ({@link System#nanoTime()}); false if interrupted. */
    static boolean waitUntil(long deadline) {
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return true;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(left);
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
        }
    }
}

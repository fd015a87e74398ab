package io.dupguard.lab.fault;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabRedisServer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;

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
            new GaleraNodeKill(),
            new ReplicaLag(),
            new PgFailover(false),
            new PgFailover(true),
            new PgFailoverReturn(PgFailoverReturn.Return.REJOIN),
            new PgFailoverReturn(PgFailoverReturn.Return.SECOND_PRIMARY),
            new PgFailoverReturn(PgFailoverReturn.Return.SECOND_PRIMARY_NEW_FIRST),
            new RedisFailover(false, 0),
            new RedisFailover(true, 0),
            new RedisFailover(false, 1),
            new RedisFailover(true, 1),
            new RedisPartition()
        }) {
            ALL.put(f.name(), f);
        }
    }

    private Faults() {}

    /** What {@code all} stands for: every fault that does not fail a server of its own over or cut it off. */
    public static List<Fault> all() {
        return ALL.values().stream().filter(Fault::inAll).toList();
    }

    /**
     * What the report says of a dupguard row that broke an invariant under the fault named {@code
     * name} on a setting that cannot keep the promise ({@link Fault#limit()}).
     */
    public static String limit(String name) {
        Fault f = ALL.get(name);
        return f != null ? f.limit() : Fault.DURABILITY_LIMIT;
    }

    /**
     * The faults named, or {@link #all()} for {@code all}.
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
                throw new IllegalArgumentException("unknown fault '" + name + "'; known: "
                        + String.join(", ", ALL.keySet()) + ", all (all but the failovers and redis-partition)");
            }
            if (!out.contains(f)) {
                out.add(f);
            }
        }
        return out;
    }

    /**
     * Parks until a moment drawn from {@code random} in the first half of the run (between a tenth
     * and 35 % of it), where the faults that strike once strike; false if interrupted.
     */
    static boolean waitForSeededMoment(long startNanos, long endNanos, SplittableRandom random) {
        long span = Math.max(1, (endNanos - startNanos) / 2);
        return waitUntil(startNanos + span / 5 + random.nextLong(span / 2 + 1));
    }

    /**
     * Points {@code env} at {@code server} of a fault's own ({@code point}) and hands it to the fault
     * ({@code hold}) until the returned handle is closed, which points {@code env} back, lets go of the
     * server and closes it. A server that cannot be pointed at is closed at once.
     */
    static <S extends AutoCloseable> AutoCloseable using(S server, Function<S, AutoCloseable> point, Consumer<S> hold)
            throws Exception {
        AutoCloseable pointed;
        try {
            pointed = point.apply(server);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        hold.accept(server);
        return () -> {
            try {
                pointed.close();
            } finally {
                hold.accept(null);
                server.close();
            }
        };
    }

    /**
     * Why a fault that runs the Redis strategies against {@code server}, a Redis of its own, cannot
     * run against {@code env}, or empty.
     */
    static Optional<String> unsupportedOwnRedis(LabEnvironment env, String server) {
        if (env.redis().isEmpty()) {
            return Optional.of("give --redis-url so that the Redis strategies are planned (the fault runs them"
                    + " against " + server + ")");
        }
        return LabRedisServer.available()
                ? Optional.empty()
                : Optional.of("needs redis-server on the PATH (scripts/services installs it)");
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

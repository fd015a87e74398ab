package io.dupguard.bench;

import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.memory.InMemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory store and its ceiling.
 *
 * <p>Millions of unique keys per second would fill any heap within seconds, and purging expired
 * records would measure the purge (a purger thread cannot even keep up next to 16 busy clients on
 * two cores). So each client thread has its own store (or map) and swaps it for an empty one every
 * {@link #ROTATE_EVERY}, between calls, forgetting its ring of duplicate keys at the same moment:
 * records then live at most that long, and what is measured is the call itself. The dupguard and
 * hand-written rows are set up exactly alike; dupguard runs with its default config.
 */
final class MemoryImpls {
    static final Duration ROTATE_EVERY = Duration.ofMillis(100);
    static final Duration LEASE = IdempotencyConfig.DEFAULT_IN_FLIGHT_LEASE;
    static final Duration RETENTION = IdempotencyConfig.DEFAULT_RETENTION;

    private static final long ROTATE_EVERY_NANOS = ROTATE_EVERY.toNanos();
    private static final int CHECK_CLOCK_EVERY = 256;

    private MemoryImpls() {}

    static List<BenchImpl> all(boolean diagnostics) {
        IdempotencyConfig config =
                IdempotencyConfig.custom().retention(RETENTION).build();
        BenchImpl ceiling = new Ceiling();
        BenchImpl dupguard = new Dupguard(
                "dupguard",
                BenchImpl.Role.DUPGUARD,
                config,
                "Idempotency.execute over InMemoryIdempotencyStore: compute (claim) + computeIfPresent (complete),"
                        + " lease renewal registered with the Watchdog (default config); duplicate = compute + decode");
        if (!diagnostics) {
            return List.of(ceiling, dupguard);
        }
        BenchImpl noRenew = new Dupguard(
                "dupguard, renewLease(false)",
                BenchImpl.Role.DIAGNOSTIC,
                IdempotencyConfig.from(config).renewLease(false).build(),
                "as dupguard, without the Watchdog registration");
        return List.of(ceiling, dupguard, noRenew, new Noop());
    }

    /** Swaps its store for an empty one between calls once {@link #ROTATE_EVERY} has passed. */
    private abstract static class RotatingClient implements BenchImpl.Client {
        private int calls;
        private long lastRotation = System.nanoTime();

        @Override
        public final boolean afterCall() {
            if (++calls % CHECK_CLOCK_EVERY == 0) {
                long now = System.nanoTime();
                if (now - lastRotation >= ROTATE_EVERY_NANOS) {
                    rotate();
                    lastRotation = now;
                    return true;
                }
            }
            return false;
        }

        abstract void rotate();
    }

    /** dupguard's executor over {@link InMemoryIdempotencyStore}; one store per client thread, swapped every {@link #ROTATE_EVERY}. */
    static final class Dupguard implements BenchImpl {
        private final String name;
        private final Role role;
        private final IdempotencyConfig config;
        private final String description;

        Dupguard(String name, Role role, IdempotencyConfig config, String description) {
            this.name = name;
            this.role = role;
            this.config = config;
            this.description = description;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Role role() {
            return role;
        }

        @Override
        public String description() {
            return description;
        }

        @Override
        public boolean call(String key, long seq) {
            throw new UnsupportedOperationException("per-thread clients only");
        }

        @Override
        public Client newClient() {
            return new RotatingClient() {
                private Idempotency idempotency = Idempotency.of(new InMemoryIdempotencyStore(), config);

                @Override
                public boolean call(String key, long seq) {
                    Outcome<String> out = idempotency.execute(
                            IdempotencyKey.of(Bench.SCOPE, key), Bench.FINGERPRINT, String.class, () -> "ok-" + seq);
                    Bench.consume(out.value());
                    return !out.isReplay();
                }

                @Override
                void rotate() {
                    idempotency = Idempotency.of(new InMemoryIdempotencyStore(), config);
                }
            };
        }

        @Override
        public void reset() {}
    }

    /**
     * By hand: {@code putIfAbsent} of an in-progress record (replacing an expired one), the work,
     * {@code put} of the completed record with its payload; a duplicate reads the record, checks the
     * fingerprint and decodes the payload.
     */
    static final class Ceiling implements BenchImpl {
        private record Rec(boolean done, String fingerprint, String owner, byte[] payload, long expiresAt) {}

        @Override
        public String name() {
            return "hand-written";
        }

        @Override
        public Role role() {
            return Role.CEILING;
        }

        @Override
        public String description() {
            return "ConcurrentHashMap: putIfAbsent(in-progress record) + put(completed record with payload);"
                    + " duplicate = putIfAbsent + fingerprint check + decode";
        }

        @Override
        public boolean call(String key, long seq) {
            throw new UnsupportedOperationException("per-thread clients only");
        }

        @Override
        public Client newClient() {
            return new RotatingClient() {
                private ConcurrentHashMap<String, Rec> map = new ConcurrentHashMap<>();

                @Override
                public boolean call(String key, long seq) {
                    long now = System.currentTimeMillis();
                    Rec claim = new Rec(false, Bench.FINGERPRINT_HEX, key, null, now + LEASE.toMillis());
                    Rec found = map.putIfAbsent(key, claim);
                    if (found != null && found.expiresAt <= now && map.replace(key, found, claim)) {
                        found = null;
                    }
                    if (found == null) {
                        String value = "ok-" + seq;
                        map.put(
                                key,
                                new Rec(
                                        true,
                                        Bench.FINGERPRINT_HEX,
                                        null,
                                        value.getBytes(StandardCharsets.UTF_8),
                                        System.currentTimeMillis() + RETENTION.toMillis()));
                        Bench.consume(value);
                        return true;
                    }
                    if (!found.done) {
                        throw new IllegalStateException("in flight: " + key);
                    }
                    if (!found.fingerprint.equals(Bench.FINGERPRINT_HEX)) {
                        throw new IllegalStateException("fingerprint mismatch: " + key);
                    }
                    Bench.consume(new String(found.payload, StandardCharsets.UTF_8));
                    return false;
                }

                @Override
                void rotate() {
                    map = new ConcurrentHashMap<>();
                }
            };
        }

        @Override
        public void reset() {}
    }

    /** The harness alone: key string, timing and histogram around a call that only builds the result. */
    static final class Noop implements BenchImpl {
        @Override
        public String name() {
            return "harness only (no store)";
        }

        @Override
        public Role role() {
            return Role.DIAGNOSTIC;
        }

        @Override
        public String description() {
            return "no store at all: what the load driver itself costs per call";
        }

        @Override
        public boolean call(String key, long seq) {
            Bench.consume("ok-" + seq);
            return true;
        }

        @Override
        public boolean tellsDuplicates() {
            return false;
        }

        @Override
        public void reset() {}
    }
}

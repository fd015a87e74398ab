package io.dupguard.bench;

import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.redis.RedisIdempotencyStore;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Redis: dupguard's {@link RedisIdempotencyStore} (one shared Lettuce connection, opened by the
 * store) and the ceiling (the same two round trips written with Lettuce's sync API on one shared
 * connection). Every key lives under a prefix unique to this JVM run and is deleted with SCAN +
 * UNLINK between runs, so other users of the server are left alone.
 */
final class RedisTarget implements AutoCloseable {
    private static final SetArgs CLAIM = SetArgs.Builder.nx().px(IdempotencyConfig.DEFAULT_IN_FLIGHT_LEASE.toMillis());
    private static final SetArgs COMPLETE = SetArgs.Builder.px(IdempotencyConfig.DEFAULT_RETENTION.toMillis());

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> admin;
    private final String prefix =
            "dupguard-bench:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<BenchImpl> impls;
    // A second client whose command listener counts what the audit rows send; never measured.
    private final RedisClient auditClient;
    private final Map<String, Integer> commands = new ConcurrentHashMap<>();
    private final AtomicLong commandCount = new AtomicLong();
    private final List<BenchImpl> auditImpls;

    RedisTarget(String url, boolean diagnostics) {
        client = RedisClient.create(url);
        admin = client.connect();
        impls = build(client, diagnostics);
        auditClient = RedisClient.create(url);
        auditClient.addListener(new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                commandCount.incrementAndGet();
                commands.merge(event.getCommand().getType().toString(), 1, Integer::sum);
            }
        });
        auditImpls = build(auditClient, false);
    }

    private List<BenchImpl> build(RedisClient on, boolean diagnostics) {
        StatefulRedisConnection<String, String> ceilingConnection = on.connect();
        RedisIdempotencyStore store =
                RedisIdempotencyStore.builder(on).keyPrefix(prefix + "dg:").build();
        toClose.add(store);
        toClose.add(ceilingConnection);
        List<BenchImpl> out = new ArrayList<>();
        out.add(new Ceiling(ceilingConnection.sync()));
        out.add(dupguard(
                "dupguard",
                BenchImpl.Role.DUPGUARD,
                Idempotency.of(store),
                "Idempotency.execute over RedisIdempotencyStore (default config): SET NX GET PX (claim) +"
                        + " EVALSHA complete script on the store's one shared connection; duplicate = the SET NX GET"));
        if (diagnostics) {
            out.add(dupguard(
                    "dupguard, renewLease(false)",
                    BenchImpl.Role.DIAGNOSTIC,
                    Idempotency.of(
                            store, IdempotencyConfig.custom().renewLease(false).build()),
                    "as dupguard, without the Watchdog registration"));
        }
        return out;
    }

    private BenchImpl dupguard(String name, BenchImpl.Role role, Idempotency idempotency, String description) {
        return new DupguardExecute(name, role, description, idempotency, seq -> "ok-" + seq, false, this::deleteKeys);
    }

    /** The rows on the counting client, and the Redis commands they sent. */
    Audit.Subject auditSubject() {
        return new Audit.Subject(
                auditImpls,
                () -> {
                    commands.clear();
                    commandCount.set(0);
                },
                calls -> {
                    StringBuilder sb = new StringBuilder(Audit.format(commandCount.get() / (double) calls, "command"));
                    List<String> parts = new ArrayList<>();
                    new TreeMap<>(commands).forEach((k, v) -> parts.add(k + " ×" + Audit.number(v / (double) calls)));
                    if (!parts.isEmpty()) {
                        sb.append(" (").append(String.join(", ", parts)).append(')');
                    }
                    return sb.toString();
                });
    }

    List<BenchImpl> impls() {
        return impls;
    }

    String serverVersion() {
        String info = admin.sync().info("server");
        String version = "?";
        String mode = "";
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                version = line.substring("redis_version:".length()).trim();
            } else if (line.startsWith("redis_mode:")) {
                mode = line.substring("redis_mode:".length()).trim();
            }
        }
        String persistence = admin.sync().configGet("appendonly").getOrDefault("appendonly", "?");
        return "Redis " + version + (mode.isEmpty() ? "" : " (" + mode + ", appendonly=" + persistence + ")");
    }

    /** Deletes every key this run wrote. */
    void deleteKeys() {
        RedisCommands<String, String> r = admin.sync();
        ScanArgs match = ScanArgs.Builder.matches(prefix + "*").limit(5000);
        KeyScanCursor<String> cursor = r.scan(ScanCursor.INITIAL, match);
        while (true) {
            if (!cursor.getKeys().isEmpty()) {
                r.unlink(cursor.getKeys().toArray(new String[0]));
            }
            if (cursor.isFinished()) {
                return;
            }
            cursor = r.scan(cursor, match);
        }
    }

    @Override
    public void close() {
        try {
            deleteKeys();
        } finally {
            for (AutoCloseable c : toClose) {
                try {
                    c.close();
                } catch (Exception e) {
                    System.err.println("redis: closing " + c + " failed: " + e);
                }
            }
            admin.close();
            client.shutdown();
            auditClient.shutdown();
        }
    }

    /** {@code SET key P NX PX lease}, the work, {@code SET key result PX retention}; duplicate: {@code GET key}. */
    private final class Ceiling implements BenchImpl {
        private final RedisCommands<String, String> redis;

        Ceiling(RedisCommands<String, String> redis) {
            this.redis = redis;
        }

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
            return "Lettuce sync on one shared connection: SET key P NX PX 30000 + SET key result PX 86400000;"
                    + " duplicate = the SET NX + GET";
        }

        @Override
        public boolean call(String key, long seq) {
            String k = prefix + "hw:" + Bench.SCOPE + ":" + key;
            if (redis.set(k, "P", CLAIM) != null) {
                String value = "ok-" + seq;
                redis.set(k, value, COMPLETE);
                Bench.consume(value);
                return true;
            }
            Bench.consume(redis.get(k));
            return false;
        }

        @Override
        public void reset() {
            deleteKeys();
        }
    }
}

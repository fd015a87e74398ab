package io.dupguard.lab.scale;

import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabRedisServer;
import io.dupguard.lab.env.RedisTarget;
import io.dupguard.redis.RedisIdempotencyStore;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;

/**
 * The Redis store on a {@code redis-server} the study starts for itself (no persistence), so that
 * {@code INFO memory} and {@code expired_keys} count nothing but the study's keys. The fill copies the
 * template record's value with pipelined {@code SET … PX} (a day); the purge is Redis's own
 * expiry: every filled key gets {@code PEXPIRE 1}, and the server's active expiry cycle removes
 * them while the load runs.
 */
final class RedisScaleTarget implements ScaleTarget {
    private static final String PREFIX = "dupguard:scale:";
    private static final int PIPELINE = 10_000;
    private static final Duration POLL = Duration.ofMillis(100);

    private final LabRedisServer server;
    private final LabEnvironment env;
    private final RedisTarget redis;
    private final RedisIdempotencyStore store;
    private long keys;
    private long expiredBefore;
    private long windowStart;
    private long windowExpired;

    RedisScaleTarget() throws IOException {
        server = new LabRedisServer(false);
        try {
            env = LabEnvironment.open(null, server.url());
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        redis = env.redis().orElseThrow();
        store = redis.newIdempotencyStore(PREFIX);
    }

    @Override
    public String label() {
        return "Redis (redis-server of the study's own, " + server.url() + ", no persistence)";
    }

    @Override
    public IdempotencyStore store() {
        return store;
    }

    static String key(String scope, String key) {
        return PREFIX + "{" + scope + ":" + key + "}";
    }

    /** The same keys as PostgreSQL's {@code md5(n::text)}. */
    static String md5(long n) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("MD5")
                            .digest(Long.toString(n).getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void fill(long keys, String template) {
        String value = redis.onStandalone(c -> c.sync().get(key(RetainedState.SCOPE, template)));
        if (value == null) {
            throw new IllegalStateException("the template record " + template + " is not in Redis");
        }
        SetArgs day = SetArgs.Builder.px(Duration.ofDays(1).toMillis());
        pipelined(keys, (a, n) -> a.set(key(RetainedState.SCOPE, md5(n)), value, day));
    }

    @Override
    public void expireFilled(long keys) {
        this.keys = keys;
        expiredBefore = stat("stats", "expired_keys");
        pipelined(keys, (a, n) -> a.pexpire(key(RetainedState.SCOPE, md5(n)), 1));
    }

    private void pipelined(long keys, BiFunction<RedisAsyncCommands<String, String>, Long, RedisFuture<?>> command) {
        redis.onStandalone(c -> {
            c.setAutoFlushCommands(false);
            try {
                RedisAsyncCommands<String, String> a = c.async();
                List<RedisFuture<?>> batch = new ArrayList<>(PIPELINE);
                for (long n = 1; n <= keys; n++) {
                    batch.add(command.apply(a, n));
                    if (batch.size() == PIPELINE || n == keys) {
                        flush(c, batch);
                    }
                }
            } finally {
                c.setAutoFlushCommands(true);
            }
            return null;
        });
    }

    private static void flush(StatefulRedisConnection<String, String> c, List<RedisFuture<?>> batch) {
        c.flushCommands();
        if (!LettuceFutures.awaitAll(60, TimeUnit.SECONDS, batch.toArray(new RedisFuture<?>[0]))) {
            throw new IllegalStateException("Redis did not answer a pipeline of " + batch.size() + " commands in 60 s");
        }
        batch.clear();
    }

    /** A number from {@code INFO section}. */
    private long stat(String section, String name) {
        String info = redis.onStandalone(c -> c.sync().info(section));
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        throw new IllegalStateException("no " + name + " in INFO " + section);
    }

    @Override
    public long storageBytes() {
        return stat("memory", "used_memory");
    }

    @Override
    public String storageMeasure() {
        return "INFO memory used_memory (the whole server, nothing else on it)";
    }

    /**
     * Redis expires by itself: its active cycle samples keys with a TTL and stops early once few of
     * a sample have expired, so the last expired keys linger until sampled or read. The purge is
     * over when every filled key has expired, or when fewer than {@code max(100, keys / 1000)}
     * expire in a second: the rest is left to lazy expiry, and reported.
     */
    @Override
    public long purgeStep() {
        LockSupport.parkNanos(POLL.toNanos()); // Redis purges by itself; the study only watches
        long now = System.nanoTime();
        // only the filled keys can expire meanwhile: the load's records are kept an hour
        long expired = stat("stats", "expired_keys") - expiredBefore;
        long left = Math.max(0, keys - expired);
        if (left == 0) {
            return 0;
        }
        if (windowStart == 0) {
            windowStart = now;
            windowExpired = expired;
        } else if (now - windowStart >= 1_000_000_000L) {
            if (expired - windowExpired < Math.max(100, keys / 1000)) {
                return left;
            }
            windowStart = now;
            windowExpired = expired;
        }
        return -1;
    }

    @Override
    public String purgeMeasure() {
        return "PEXPIRE 1 on every filled key (pipelined), then Redis's active expiry until all expired or fewer than max(100, keys/1000) a second"
                + " (INFO stats expired_keys every " + POLL.toMillis() + " ms)";
    }

    @Override
    public void close() {
        try {
            store.close();
            env.close();
        } finally {
            try {
                server.close();
            } catch (IOException e) {
                throw new IllegalStateException("stopping the study's redis-server failed", e);
            }
        }
    }
}

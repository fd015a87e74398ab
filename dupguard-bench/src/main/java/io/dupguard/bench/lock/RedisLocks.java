package io.dupguard.bench.lock;

import io.dupguard.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * Redis: the hand-written ceiling, dupguard's {@link RedisLockProvider}, Redisson's {@code RLock}
 * and Spring Integration's {@code RedisLockRegistry}, each with its own client and connections and
 * its own key prefix, all on one server.
 */
final class RedisLocks implements Backend {
    static final String CEILING = "hand-written SET NX PX + Lua release";
    static final String DUPGUARD = "dupguard RedisLockProvider";
    static final String REDISSON = "Redisson RLock";
    static final String SPRING = "Spring RedisLockRegistry";

    /** Lease of the hand-written lock ({@code PX 30000}); the others use their defaults. */
    static final long CEILING_LEASE_MILLIS = 30_000;
    /** How long a refused hand-written acquire sleeps before it asks again (contended rows). */
    static final long CEILING_RETRY_MILLIS = 1;

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String RELEASE_SCRIPT =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

    private final RedisURI uri;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final RedisClient adminClient;
    private final StatefulRedisConnection<String, String> admin;
    private final List<LockImpl> impls = new ArrayList<>();

    RedisLocks(String url) {
        uri = RedisURI.create(url);
        adminClient = RedisClient.create(uri);
        toClose.add(adminClient::shutdown);
        admin = adminClient.connect();
        toClose.add(0, admin::close);
        try {
            impls.add(ceiling());
            impls.add(dupguard());
            impls.add(redisson());
            impls.add(spring());
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    @Override
    public String title() {
        return "Redis";
    }

    @Override
    public String server() {
        for (String line : admin.sync().info("server").split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return "Redis " + line.substring("redis_version:".length()).trim();
            }
        }
        return "Redis ?";
    }

    @Override
    public List<LockImpl> impls() {
        return impls;
    }

    private LockImpl ceiling() {
        RedisClient client = RedisClient.create(uri);
        toClose.add(0, client::shutdown);
        StatefulRedisConnection<String, String> connection = client.connect();
        toClose.add(0, connection::close);
        RedisCommands<String, String> redis = connection.sync();
        String sha = redis.scriptLoad(RELEASE_SCRIPT);
        SetArgs nxpx = SetArgs.Builder.nx().px(CEILING_LEASE_MILLIS);
        AtomicLong clients = new AtomicLong();
        return new Impl(
                CEILING,
                LockImpl.Role.CEILING,
                "acquire: `SET key token NX PX 30000` (1 round trip); release: `EVALSHA` compare-and-delete (1)."
                        + " One shared Lettuce connection, no fence, no reentrancy, no renewal.",
                "none: a refused `SET NX` sleeps " + CEILING_RETRY_MILLIS + " ms and asks again (every thread polls)",
                () -> {
                    String tokenPrefix = "c" + clients.incrementAndGet() + "-";
                    long[] seq = {0};
                    return name -> {
                        String key = "bench:ceiling:" + name;
                        String token = tokenPrefix + seq[0]++;
                        long deadline = System.nanoTime() + WAIT.toNanos();
                        while (redis.set(key, token, nxpx) == null) {
                            if (System.nanoTime() - deadline > 0) {
                                throw new IllegalStateException("not acquired within " + WAIT);
                            }
                            Thread.sleep(CEILING_RETRY_MILLIS);
                        }
                        return () -> {
                            Long released = redis.evalsha(sha, ScriptOutputType.INTEGER, new String[] {key}, token);
                            if (released == null || released != 1L) {
                                throw new IllegalStateException("lock " + key + " was not held at release");
                            }
                        };
                    };
                });
    }

    private LockImpl dupguard() {
        RedisClient client = RedisClient.create(uri);
        toClose.add(0, client::shutdown);
        RedisLockProvider locks =
                RedisLockProvider.builder(client).keyPrefix("bench:dupguard:").build();
        toClose.add(0, locks);
        return Impl.dupguard(
                DUPGUARD,
                "acquire: `EVALSHA` lock script (`SET NX PX` + `INCR` fence, 1 round trip); release: `EVALSHA`"
                        + " compare-and-delete, `PUBLISH` only if a waiter flagged itself (1). Defaults: 30 s lease"
                        + " renewed by the Watchdog, 30 s wait.",
                "FIFO gate per name in the JVM, only its head asks Redis; cross-JVM waiters wake on pub/sub",
                locks);
    }

    private LockImpl redisson() {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + uri.getHost() + ":" + uri.getPort());
        RedissonClient redisson = Redisson.create(config);
        toClose.add(0, redisson::shutdown);
        return new Impl(
                REDISSON,
                LockImpl.Role.PEER,
                "`getLock(name).lock()`: `EVALSHA` acquire script (`EXISTS`/`HINCRBY`/`PEXPIRE`, 1 round trip),"
                        + " then schedules its watchdog renewal; `unlock()`: `EVALSHA` release script (`HINCRBY`/`DEL`/"
                        + "`PUBLISH` + an unlock-latch `SET`, 1) and a fire-and-forget `DEL` of the latch key."
                        + " Redisson 3.52 defaults (30 s watchdog, 64-connection pool).",
                "every waiter subscribes to the lock's channel and retries on a release message or the TTL;"
                        + " not FIFO (a new caller can take the lock before a woken waiter)",
                () -> name -> {
                    RLock lock = redisson.getLock("bench:redisson:" + name);
                    lock.lock();
                    return lock::unlock;
                });
    }

    private LockImpl spring() {
        LettuceConnectionFactory factory =
                new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        factory.afterPropertiesSet();
        factory.start();
        toClose.add(0, factory::destroy);
        RedisLockRegistry registry = new RedisLockRegistry(factory, "bench:spring");
        toClose.add(0, registry::destroy);
        return new Impl(
                SPRING,
                LockImpl.Role.PEER,
                "`obtain(name).lock()`: `EVALSHA` obtain script (`GET`, `SET PX`, 1 round trip); `unlock()`:"
                        + " `EVALSHA` `UNLINK` script (1). spring-integration-redis 6.5.1 defaults (SPIN_LOCK, 60 s"
                        + " expiry, no renewal) on spring-data-redis 3.5.2 / Lettuce, shared native connection.",
                "a per-name `ReentrantLock` (non-fair) in the JVM, so only one thread asks Redis; a refused"
                        + " holder of that lock polls Redis every 100 ms (SPIN_LOCK)",
                () -> name -> {
                    Lock lock = registry.obtain(name);
                    lock.lock();
                    return lock::unlock;
                });
    }

    @Override
    public Audited audit(LockImpl measured) throws Exception {
        RedisMonitor monitor = new RedisMonitor(uri.getHost(), uri.getPort());
        RedisCommands<String, String> echo = admin.sync();
        return new Audited() {
            @Override
            public LockImpl impl() {
                return measured;
            }

            @Override
            public void start() throws Exception {
                monitor.start(echo::echo);
            }

            @Override
            public Map<String, Long> stop() throws Exception {
                Map<String, Long> counts = monitor.stop(echo::echo);
                counts.remove("PING"); // connection heartbeats of the pooled clients, not lock traffic
                return counts;
            }

            @Override
            public void close() {
                monitor.close();
            }
        };
    }

    /** Removes every key the rows wrote, so that nothing is left between runs. Not timed. */
    void deleteKeys() {
        RedisCommands<String, String> redis = admin.sync();
        for (String pattern : List.of("bench:ceiling:*", "bench:dupguard:*", "bench:redisson:*", "bench:spring:*")) {
            List<String> keys = redis.keys(pattern);
            if (!keys.isEmpty()) {
                redis.del(keys.toArray(String[]::new));
            }
        }
    }

    @Override
    public void close() {
        try {
            deleteKeys();
        } catch (RuntimeException e) {
            // best effort; the keys expire or are overwritten by the next run
        }
        for (AutoCloseable c : toClose) {
            try {
                c.close();
            } catch (Exception e) {
                System.out.println("  closing a Redis client failed: " + e);
            }
        }
        toClose.clear();
    }
}

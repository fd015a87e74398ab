package io.dupguard.console;

import io.dupguard.StoreUnavailableException;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The locks of {@code RedisLockProvider} on one Redis (standalone or Sentinel): keys {@code
 * prefix{name}} holding the owner token with the lease as TTL, next to {@code prefix{name}:fence}.
 * Listing SCANs the prefix (no KEYS) for at most 150 ms; each lock is read with one script (token, TTL, fence, Redis's
 * TIME), so lease ends are by Redis's clock. A release by force deletes the key only if it still
 * holds the token shown, as the holder's own release does; the fence counter stays.
 */
final class RedisLocks implements LockSource {
    private static final String READ = "local t = redis.call('TIME')"
            + " return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[2]),"
            + " t[1], t[2]}";
    private static final String RELEASE =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
    private static final long SCAN_BUDGET_NANOS = 150_000_000L;

    private final StatefulRedisConnection<String, String> connection;
    private final String prefix;

    RedisLocks(StatefulRedisConnection<String, String> connection, String prefix) {
        this.connection = connection;
        this.prefix = prefix;
    }

    @Override
    public String provider() {
        return "redis";
    }

    @Override
    public Page<LockRow> held(String after, int limit) {
        try {
            RedisCommands<String, String> redis = connection.sync();
            List<String> names = new ArrayList<>();
            ScanArgs args = ScanArgs.Builder.matches(escapeGlob(prefix) + "{*}").limit(2000);
            ScanCursor cursor = after == null ? ScanCursor.INITIAL : ScanCursor.of(after);
            long deadline = System.nanoTime() + SCAN_BUDGET_NANOS;
            KeyScanCursor<String> page;
            do {
                page = redis.scan(cursor, args);
                for (String key : page.getKeys()) {
                    names.add(name(key));
                }
                cursor = page;
            } while (!page.isFinished() && names.size() < limit && System.nanoTime() < deadline);
            List<LockRow> rows = new ArrayList<>();
            for (String n : names) {
                read(redis, n).ifPresent(rows::add);
            }
            rows.sort(java.util.Comparator.comparing(LockRow::name));
            return new Page<>(
                    rows,
                    page.isFinished() ? null : page.getCursor(),
                    page.isFinished()
                            ? null
                            : "Redis holds more keys than one page scans; not every Redis lock is listed");
        } catch (RedisException e) {
            throw new StoreUnavailableException("redis", "console: cannot list Redis locks: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<LockRow> find(String name) {
        try {
            return read(connection.sync(), name);
        } catch (RedisException e) {
            throw new StoreUnavailableException("redis", "console: cannot read Redis lock: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean release(Connection conn, String name, String owner) {
        try {
            Long n = connection.sync().eval(RELEASE, ScriptOutputType.INTEGER, new String[] {key(name)}, owner);
            return n != null && n == 1L;
        } catch (RedisException e) {
            throw new StoreUnavailableException("redis", "console: cannot release Redis lock: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean releasesInTransaction() {
        return false;
    }

    private Optional<LockRow> read(RedisCommands<String, String> redis, String name) {
        List<Object> r = redis.eval(READ, ScriptOutputType.MULTI, key(name), key(name) + ":fence");
        Object token = r.get(0);
        long ttl = (Long) r.get(1);
        if (token == null || ttl < 0) {
            return Optional.empty();
        }
        long fence = r.get(2) == null ? -1 : Long.parseLong((String) r.get(2));
        Instant now = Instant.ofEpochSecond(Long.parseLong(str(r.get(3))), Long.parseLong(str(r.get(4))) * 1000);
        return Optional.of(new LockRow("redis", name, (String) token, fence, now.plusMillis(ttl), now));
    }

    private static String str(Object o) {
        return o instanceof Long l ? Long.toString(l) : (String) o;
    }

    /** The key of a lock, as {@code LockKeys} writes it. */
    private String key(String name) {
        char first = name.charAt(0);
        return prefix + "{" + (first == '}' || first == '\\' ? "\\" + name : name) + "}";
    }

    private String name(String key) {
        String tag = key.substring(prefix.length() + 1, key.length() - 1);
        return tag.startsWith("\\") ? tag.substring(1) : tag;
    }

    private static String escapeGlob(String s) {
        return s.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
    }
}

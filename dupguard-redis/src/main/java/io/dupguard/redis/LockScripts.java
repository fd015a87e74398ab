package io.dupguard.redis;

import io.dupguard.internal.Checks;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * The Lua scripts of {@link RedisLockProvider} and {@link RedlockProvider}, one per operation so
 * that each is one atomic round trip. Keys are laid out by {@link LockKeys} and share one hash tag.
 *
 * <p>Why a re-sent {@link #LOCK} finds its own token: with auto-reconnect Lettuce delivers at
 * least once, re-sending a command whose reply was lost when the connection dropped. Owner tokens
 * are unique per acquisition, so finding our own token means the first send already took the lock,
 * and the fence it drew is still the counter's value (nobody else can have drawn one since).
 */
final class LockScripts {
    // Redis rejects a PX/PEXPIRE whose deadline overflows a signed 64-bit millisecond clock.
    private static final long MAX_TTL_MILLIS = Long.MAX_VALUE / 2;

    private LockScripts() {}

    /** A lease as the millisecond argument, at least 1 ms: {@code PX 0} is an error. */
    static byte[] millis(Duration lease) {
        return utf8(Long.toString(Math.min(Math.max(Checks.millis(lease), 1L), MAX_TTL_MILLIS)));
    }

    /**
     * The fence floor argument of {@link #LOCK}: this machine's clock in microseconds since the
     * epoch. Stays below 2^53 (exact in Lua's doubles) until the year 2255.
     */
    static byte[] fenceFloor() {
        Instant now = Instant.now();
        return utf8(Long.toString(now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000));
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * KEYS: lock, fence, waiters. ARGV: token, lease millis, fence floor, {@code 1} to flag a
     * waiter (else {@code 0}).
     *
     * <p>Returns the new fencing token (&gt; 0) if the caller took the lock: the counter plus one,
     * raised to at least the floor. The floor (the caller's clock in microseconds) keeps tokens
     * increasing even if the counter is lost (failover to a replica that had not seen the last
     * {@code INCR}, a restart without persistence), as long as clocks are roughly right; the
     * counter alone keeps them increasing when they are not. Returns {@code -ttl} (&lt; 0) if
     * another owner holds the lock for {@code ttl} more milliseconds, {@code 0} if it holds it
     * without a known expiry.
     */
    static final RedisScript LOCK = RedisScript.of(
            "lock",
            """
            if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
              local fence = redis.call('INCR', KEYS[2])
              if fence < tonumber(ARGV[3]) then
                redis.call('SET', KEYS[2], ARGV[3])
                fence = tonumber(ARGV[3])
              end
              return fence
            end
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
              return tonumber(redis.call('GET', KEYS[2]))
            end
            local ttl = redis.call('PTTL', KEYS[1])
            if ttl <= 0 then
              return 0
            end
            if ARGV[4] == '1' then
              redis.call('SET', KEYS[3], '1', 'PX', ttl)
            end
            return -ttl
            """);

    /** KEYS: lock. ARGV: token, lease millis. Returns 1 if the token's lease was reset, else 0. */
    static final RedisScript EXTEND = RedisScript.of(
            "extend",
            """
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then
              return 0
            end
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return 1
            """);

    /**
     * KEYS: lock, waiters. ARGV: token, channel. Deletes the lock if the token holds it and, only if
     * a refused caller flagged itself as waiting, publishes on the channel. Returns 1 if released.
     */
    static final RedisScript UNLOCK = RedisScript.of(
            "unlock",
            """
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then
              return 0
            end
            redis.call('DEL', KEYS[1])
            if redis.call('DEL', KEYS[2]) == 1 then
              redis.call('PUBLISH', ARGV[2], '1')
            end
            return 1
            """);

    /** KEYS: fence. ARGV: token. Raises the counter to the token if it is lower; returns 1. */
    static final RedisScript RAISE_FENCE = RedisScript.of(
            "raise fence",
            """
            if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[1]) then
              redis.call('SET', KEYS[1], ARGV[1])
            end
            return 1
            """);
}

package io.dupguard.redis;

/**
 * The record layout and Lua scripts of {@link RedisIdempotencyStore}. Each record is one string
 * value (see {@link PackedRecord}):
 *
 * <pre>
 * P&lt;fingerprint hex&gt;\n&lt;owner&gt;\n              in progress
 * C&lt;fingerprint hex&gt;\n&lt;owner&gt;\n+&lt;payload&gt;   completed (F: failed); "-" instead of "+&lt;payload&gt;" for null
 * </pre>
 *
 * <p>The claim needs no script: {@code SET key <P record> NX GET PX <lease>} creates the record or
 * returns the existing one in one native command (Redis 7.0+; {@link #CLAIM} does the same on older
 * servers). Complete, release and renew compare the owner and write in one script each, touching
 * exactly {@code KEYS[1]}.
 *
 * <p>Why the owner is kept after completion: with auto-reconnect Lettuce delivers at least once,
 * re-sending a command whose reply was lost when the connection dropped. Owner tokens are unique per
 * call, so a claim or complete that finds its own owner's effect already applied reports success
 * instead of "someone else holds it" or a false {@link io.dupguard.LeaseLostException}.
 */
final class IdempotencyScripts {
    private IdempotencyScripts() {}

    // Shared prologue: v = the record, nl = its first newline, tag = "\n<owner>\n"; own = whether
    // the record carries this owner.
    private static final String READ_OWNED =
            """
            local v = redis.call('GET', KEYS[1])
            if not v then return 0 end
            local nl = string.find(v, '\\n', 2, true)
            local tag = '\\n' .. ARGV[1] .. '\\n'
            if not nl or string.sub(v, nl, nl + #tag - 1) ~= tag then return 0 end
            """;

    /**
     * The claim for servers before Redis 7.0, which refuse {@code SET … NX GET}. ARGV: the in-progress
     * record, lease millis. Returns nil when the caller created the record, else the existing one.
     */
    static final RedisScript CLAIM = RedisScript.of(
            "claim",
            """
            local v = redis.call('GET', KEYS[1])
            if v then return v end
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
            return false
            """);

    /**
     * ARGV: owner, new state (C or F), retention millis, fingerprint hex (or {@code ?} if unknown),
     * [payload] (absent for a null payload). Returns 1 if the owner's in-progress record was finished
     * (or already had been, by this same owner), or if the key was absent and the record was
     * re-created from the fingerprint: the owner's lease ran out but nobody took the key over, so its
     * result still counts. Returns 0 if another owner holds the key (a real takeover).
     */
    static final RedisScript COMPLETE = RedisScript.of(
            "complete",
            """
            local body = '-'
            if ARGV[5] then body = '+' .. ARGV[5] end
            local tag = '\\n' .. ARGV[1] .. '\\n'
            local v = redis.call('GET', KEYS[1])
            if not v then
              if ARGV[4] == '?' then return 0 end
              redis.call('SET', KEYS[1], ARGV[2] .. ARGV[4] .. tag .. body, 'PX', ARGV[3])
              return 1
            end
            local nl = string.find(v, '\\n', 2, true)
            if not nl or string.sub(v, nl, nl + #tag - 1) ~= tag then return 0 end
            local st = string.sub(v, 1, 1)
            if st == 'C' or st == 'F' then return 1 end
            if st ~= 'P' then return 0 end
            redis.call('SET', KEYS[1], ARGV[2] .. string.sub(v, 2, nl - 1) .. tag .. body, 'PX', ARGV[3])
            return 1
            """);

    /** ARGV: owner. Deletes the owner's in-progress record; returns 1 if deleted, else 0. */
    static final RedisScript RELEASE = RedisScript.of(
            "release",
            READ_OWNED
                    + """
            if string.sub(v, 1, 1) ~= 'P' then return 0 end
            return redis.call('DEL', KEYS[1])
            """);

    /** ARGV: owner, lease millis. Resets the owner's lease; returns 1 if renewed, else 0. */
    static final RedisScript RENEW = RedisScript.of(
            "renew",
            READ_OWNED
                    + """
            if string.sub(v, 1, 1) ~= 'P' then return 0 end
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return 1
            """);
}

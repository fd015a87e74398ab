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

    /**
     * {@code running(key, owner)}: the key's record if it is in progress under {@code owner}, else
     * nil. Shared by {@link #RELEASE}, {@link #RELEASE_MANY} and {@link #RENEW}.
     */
    private static final String RUNNING =
            """
            local function running(key, owner)
              local v = redis.call('GET', key)
              if not v or string.sub(v, 1, 1) ~= 'P' then return nil end
              local nl = string.find(v, '\\n', 2, true)
              local tag = '\\n' .. owner .. '\\n'
              if not nl or string.sub(v, nl, nl + #tag - 1) ~= tag then return nil end
              return v
            end
            """;

    /**
     * {@code claim(key, record, ttl)}: the claim of one key as {@code SET … NX GET PX} does it —
     * false when it created the record, else the existing one. Shared by {@link #CLAIM} and {@link
     * #CLAIM_MANY}.
     */
    private static final String CLAIM_ONE =
            """
            local function claim(key, record, ttl)
              local v = redis.call('GET', key)
              if v then return v end
              redis.call('SET', key, record, 'PX', ttl)
              return false
            end
            """;

    /**
     * The claim for servers before Redis 7.0, which refuse {@code SET … NX GET}, and for a claim
     * that found its own record. ARGV: the in-progress record, lease millis. Returns nil when the
     * caller created the record, else the existing one; the caller's own record (a claim sent again)
     * gets its lease reset, so the claim writes either way and a {@code WAIT} after it, on whichever
     * connection, counts the record.
     */
    static final RedisScript CLAIM = RedisScript.of(
            "claim",
            CLAIM_ONE
                    + """
            local v = claim(KEYS[1], ARGV[1], ARGV[2])
            if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
            return v
            """);

    /**
     * The completion of one key, shared by {@link #COMPLETE} and {@link #COMPLETE_MANY}: {@code
     * finish(key, owner, state, ttl, fp, body)} with {@code body} {@code -} (null payload) or {@code
     * +<payload>}.
     */
    private static final String FINISH =
            """
            local function finish(key, owner, state, ttl, fp, body)
              local tag = '\\n' .. owner .. '\\n'
              local v = redis.call('GET', key)
              if not v then
                if fp == '?' then return 0 end
                redis.call('SET', key, state .. fp .. tag .. body, 'PX', ttl)
                return 1
              end
              local nl = string.find(v, '\\n', 2, true)
              if not nl or string.sub(v, nl, nl + #tag - 1) ~= tag then return 0 end
              local st = string.sub(v, 1, 1)
              if st == 'C' or st == 'F' then
                redis.call('PEXPIRE', key, ttl)
                return 1
              end
              if st ~= 'P' then return 0 end
              redis.call('SET', key, state .. string.sub(v, 2, nl - 1) .. tag .. body, 'PX', ttl)
              return 1
            end
            """;

    /**
     * ARGV: owner, new state (C or F), retention millis, fingerprint hex (or {@code ?} if unknown),
     * [payload] (absent for a null payload). Returns 1 if the owner's in-progress record was finished
     * (or already had been, by this same owner), or if the key was absent and the record was
     * re-created from the fingerprint: the owner's lease ran out but nobody took the key over, so its
     * result still counts. Returns 0 if another owner holds the key (a real takeover).
     *
     * <p>A completion sent again that finds its own finished record resets its retention: it writes,
     * so the {@code WAIT} that follows it counts the record whatever connection it travels on.
     * {@code WAIT} counts the replicas that have the connection's own last write; a script that wrote
     * nothing would be acknowledged at once on a connection whose last write is older, with the first
     * completion on no replica yet.
     */
    static final RedisScript COMPLETE = RedisScript.of(
            "complete",
            FINISH
                    + """
            local body = '-'
            if ARGV[5] then body = '+' .. ARGV[5] end
            return finish(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], body)
            """);

    /**
     * {@link #COMPLETE} of every key of a batch in one script (standalone and Sentinel-managed
     * Redis: one server holds every key). ARGV: owner, retention millis, then per key its state (C
     * or F), fingerprint hex and body ({@code -} for a null payload, else {@code +<payload>}).
     * Returns one 1 / 0 per key, as {@link #COMPLETE}.
     */
    static final RedisScript COMPLETE_MANY = RedisScript.of(
            "complete batch",
            FINISH
                    + """
            local done = {}
            for i, key in ipairs(KEYS) do
              local a = 3 * i
              done[i] = finish(key, ARGV[1], ARGV[a], ARGV[2], ARGV[a + 1], ARGV[a + 2])
            end
            return done
            """);

    /**
     * The claim of every key of a batch in one script (standalone and Sentinel-managed Redis).
     * ARGV: lease millis, then per key its in-progress record. Returns per key false (nil: the
     * caller created the record) or the existing record, as {@code SET … NX GET}.
     */
    static final RedisScript CLAIM_MANY = RedisScript.of(
            "claim batch",
            CLAIM_ONE
                    + """
            local found = {}
            for i, key in ipairs(KEYS) do
              found[i] = claim(key, ARGV[i + 1], ARGV[1])
            end
            return found
            """);

    /**
     * {@link #RELEASE} of every key of a batch in one script (standalone and Sentinel-managed
     * Redis). ARGV: owner. Returns how many records it deleted.
     */
    static final RedisScript RELEASE_MANY = RedisScript.of(
            "release batch",
            RUNNING
                    + """
            local deleted = 0
            for _, key in ipairs(KEYS) do
              if running(key, ARGV[1]) then deleted = deleted + redis.call('DEL', key) end
            end
            return deleted
            """);

    /** ARGV: owner. Deletes the owner's in-progress record; returns 1 if deleted, else 0. */
    static final RedisScript RELEASE = RedisScript.of(
            "release",
            RUNNING
                    + """
            if not running(KEYS[1], ARGV[1]) then return 0 end
            return redis.call('DEL', KEYS[1])
            """);

    /** ARGV: owner, lease millis. Resets the owner's lease; returns 1 if renewed, else 0. */
    static final RedisScript RENEW = RedisScript.of(
            "renew",
            RUNNING
                    + """
            if not running(KEYS[1], ARGV[1]) then return 0 end
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return 1
            """);
}

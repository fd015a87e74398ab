package io.dupguard.redis;

/**
 * The Lua scripts of {@link RedisIdempotencyStore}, one per operation so that each is one atomic
 * round trip. Each touches exactly {@code KEYS[1]}, the record's hash.
 *
 * <p>Hash fields: {@code st} state ({@code P} in progress, {@code C} completed, {@code F} failed),
 * {@code fp} fingerprint hex (empty for none), {@code own} owner token of the claim, {@code pl}
 * payload (finished only). The key's TTL is the lease while in progress and the retention once
 * finished, so Redis itself expires abandoned claims and old records.
 *
 * <p>Why {@code own} is kept after completion: with auto-reconnect Lettuce delivers at least once,
 * re-sending a command whose reply was lost when the connection dropped. Owner tokens are unique per
 * call, so a claim or complete that finds its own owner's effect already applied reports success
 * instead of "someone else holds it" or a false {@link io.dupguard.LeaseLostException}.
 */
final class IdempotencyScripts {
    private IdempotencyScripts() {}

    /**
     * ARGV: fingerprint, owner, lease millis. Returns an empty array when the caller claimed the
     * key, else the live record's {@code st, fp, own, pl} (nil for absent fields).
     */
    static final RedisScript CLAIM = RedisScript.of(
            "claim",
            """
            local found = redis.call('HMGET', KEYS[1], 'st', 'fp', 'own', 'pl')
            if found[1] == 'P' and found[3] == ARGV[2] then
              return {}
            end
            if found[1] then
              return found
            end
            redis.call('HSET', KEYS[1], 'st', 'P', 'fp', ARGV[1], 'own', ARGV[2])
            redis.call('PEXPIRE', KEYS[1], ARGV[3])
            return {}
            """);

    /**
     * ARGV: owner, new state (C or F), retention millis, [payload] (absent for a null payload).
     * Returns 1 if the owner's in-progress record was finished (or already had been, by this same
     * owner), 0 if the owner lost it.
     */
    static final RedisScript COMPLETE = RedisScript.of(
            "complete",
            """
            local found = redis.call('HMGET', KEYS[1], 'st', 'own')
            if not found[1] or found[2] ~= ARGV[1] then
              return 0
            end
            if found[1] ~= 'P' then
              return 1
            end
            redis.call('HSET', KEYS[1], 'st', ARGV[2])
            if ARGV[4] then
              redis.call('HSET', KEYS[1], 'pl', ARGV[4])
            end
            redis.call('PEXPIRE', KEYS[1], ARGV[3])
            return 1
            """);

    /** ARGV: owner. Deletes the owner's in-progress record; returns 1 if deleted, else 0. */
    static final RedisScript RELEASE = RedisScript.of(
            "release",
            """
            local found = redis.call('HMGET', KEYS[1], 'st', 'own')
            if found[1] ~= 'P' or found[2] ~= ARGV[1] then
              return 0
            end
            return redis.call('DEL', KEYS[1])
            """);

    /** ARGV: owner, lease millis. Resets the owner's lease; returns 1 if renewed, else 0. */
    static final RedisScript RENEW = RedisScript.of(
            "renew",
            """
            local found = redis.call('HMGET', KEYS[1], 'st', 'own')
            if found[1] ~= 'P' or found[2] ~= ARGV[1] then
              return 0
            end
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return 1
            """);
}

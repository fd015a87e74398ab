package io.dupguard.redis;

/**
 * What a Redis backend does when, on connecting, it finds a server that may evict keys under memory
 * pressure ({@code maxmemory} set and {@code maxmemory-policy} other than {@code noeviction}).
 *
 * <p>Every key dupguard writes carries a TTL, so even the {@code volatile-*} policies can evict
 * them. An evicted in-progress claim or completed record lets a retry run the work again; an evicted
 * lock lets a second holder in. Such a server cannot keep the promise, so the default is {@link
 * #REFUSE}. A server that forbids {@code CONFIG GET} (some managed services) cannot be checked:
 * the backend logs a warning once and goes on.
 */
public enum EvictionPolicyCheck {
    /**
     * Default: every operation fails with {@link io.dupguard.StoreUnavailableException} naming the
     * setting, as long as the server may evict.
     */
    REFUSE,
    /** Log a warning naming the setting once per connection, and go on. */
    WARN,
    /** Do not check (for servers whose memory is known to be ample). */
    OFF
}

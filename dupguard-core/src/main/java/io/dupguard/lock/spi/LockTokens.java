package io.dupguard.lock.spi;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner tokens for store-backed locks: a random per-JVM prefix and a counter.
 *
 * <p>Invariant: every token is unique — across acquisitions, hand-offs and JVMs (the prefix has 64
 * random bits) — so a lease that expired and was taken over can never release or extend its
 * successor's lock (L3).
 */
final class LockTokens {
    private static final String PREFIX = randomPrefix();
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private LockTokens() {}

    /** A token never returned before. Thread-safe. */
    static String next() {
        return PREFIX + SEQUENCE.incrementAndGet();
    }

    private static String randomPrefix() {
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random) + "-";
    }
}

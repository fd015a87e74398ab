package io.dupguard.internal;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner tokens of claims and token leases: a per-JVM random prefix and a counter — unique across
 * machines and restarts without paying for {@link SecureRandom} on every call. Not part of the
 * public API.
 */
public final class Owners {
    private static final String PREFIX = randomPrefix();
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private Owners() {}

    /** A new owner token, at most 64 characters. */
    public static String next() {
        return PREFIX + SEQUENCE.incrementAndGet();
    }

    private static String randomPrefix() {
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random) + "-";
    }
}

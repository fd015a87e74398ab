package io.dupguard.internal;

import io.dupguard.InvalidIdentifierException;
import java.time.Duration;
import java.util.Objects;

/** Argument checks shared by config builders and key types. Not part of the public API. */
public final class Checks {
    private Checks() {}

    /**
     * Longest duration any setting accepts: 100 years. Every store represents it (PostgreSQL and
     * MariaDB timestamps, H2, Redis millisecond TTLs) and arithmetic on it cannot overflow, so "keep
     * it forever" is spelled {@code Checks.MAX_DURATION}, never {@code ChronoUnit.FOREVER}.
     */
    public static final Duration MAX_DURATION = Duration.ofDays(36_500);

    /** Requires {@code 0 < value <= MAX_DURATION}; the message names the field and the limit. */
    public static Duration positive(Duration value, String field) {
        return between(value, Duration.ofNanos(1), MAX_DURATION, field);
    }

    /**
     * Requires {@code min <= value <= max}; the message names the field and the limit that was
     * broken.
     */
    public static Duration between(Duration value, Duration min, Duration max, String field) {
        Objects.requireNonNull(value, field + " must not be null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(field + " must be positive, was " + value);
        }
        if (value.compareTo(min) < 0) {
            throw new IllegalArgumentException(field + " must be at least " + min + ", was " + value);
        }
        if (value.compareTo(max) > 0) {
            throw new IllegalArgumentException(field + " must be at most " + max + describe(max) + ", was " + value);
        }
        return value;
    }

    private static String describe(Duration max) {
        return max.equals(MAX_DURATION) ? " (100 years)" : "";
    }

    /** Requires {@code 0 <= value <= MAX_DURATION}; the message names the field and the limit. */
    public static Duration notNegative(Duration value, String field) {
        Objects.requireNonNull(value, field + " must not be null");
        if (value.isNegative()) {
            throw new IllegalArgumentException(field + " must not be negative, was " + value);
        }
        if (value.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(
                    field + " must be at most " + MAX_DURATION + describe(MAX_DURATION) + ", was " + value);
        }
        return value;
    }

    /** Requires {@code value >= min}; the message names the field. */
    public static int atLeast(int value, int min, String field) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be at least " + min + ", was " + value);
        }
        return value;
    }

    /**
     * Requires a non-blank string of at most {@code maxLength} characters without control
     * characters and without lone surrogates (malformed UTF-16 would collapse to {@code ?} in every
     * store's encoding, so {@code k\uD800} and {@code k\uDBFF} would be one key).
     */
    public static String text(String value, int maxLength, String field) {
        if (value == null) {
            throw new InvalidIdentifierException(field + " must not be null");
        }
        if (value.isBlank()) {
            throw new InvalidIdentifierException(field + " must not be blank");
        }
        if (value.length() > maxLength) {
            throw new InvalidIdentifierException(
                    field + " must be at most " + maxLength + " characters, was " + value.length());
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new InvalidIdentifierException(field + " must not contain control characters (found U+"
                        + String.format("%04X", (int) c) + " at index " + i + ")");
            }
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c)
                        && i + 1 < value.length()
                        && Character.isLowSurrogate(value.charAt(i + 1))) {
                    i++; // a well-formed pair: one supplementary character
                    continue;
                }
                throw new InvalidIdentifierException(field + " must be well-formed UTF-16 (lone surrogate U+"
                        + String.format("%04X", (int) c) + " at index " + i + ")");
            }
        }
        return value;
    }

    /** Nanos of a duration, saturating instead of overflowing. */
    public static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /** Millis of a duration, saturating instead of overflowing. */
    public static long millis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}

package io.dupguard.internal;

import io.dupguard.InvalidKeyException;
import java.time.Duration;
import java.util.Objects;

/** Argument checks shared by config builders and key types. Not part of the public API. */
public final class Checks {
    private Checks() {}

    /** Requires a strictly positive duration; the message names the field. */
    public static Duration positive(Duration value, String field) {
        Objects.requireNonNull(value, field + " must not be null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(field + " must be positive, was " + value);
        }
        return value;
    }

    /** Requires a duration that is zero or positive; the message names the field. */
    public static Duration notNegative(Duration value, String field) {
        Objects.requireNonNull(value, field + " must not be null");
        if (value.isNegative()) {
            throw new IllegalArgumentException(field + " must not be negative, was " + value);
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
     * characters.
     */
    public static String text(String value, int maxLength, String field) {
        if (value == null) {
            throw new InvalidKeyException(field + " must not be null");
        }
        if (value.isBlank()) {
            throw new InvalidKeyException(field + " must not be blank");
        }
        if (value.length() > maxLength) {
            throw new InvalidKeyException(
                    field + " must be at most " + maxLength + " characters, was " + value.length());
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new InvalidKeyException(field + " must not contain control characters (found U+"
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

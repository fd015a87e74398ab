package io.dupguard.console;

import io.dupguard.retry.TaskState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.Locale;

/** Reads the request parameters the pages and the API share; a bad value is a {@link BadRequestException}. */
final class Params {
    private Params() {}

    static TaskFilter filter(ConsoleRequest r) {
        return new TaskFilter(
                state(r.param("state")),
                r.param("type"),
                r.param("taskKey"),
                r.param("dedupKey"),
                r.param("error"),
                instant(r.param("since"), "since"),
                r.param("cursor"),
                limit(r.param("limit")));
    }

    /**
     * The selection of a bulk action: the filter's fields without the page's ({@code cursor}, {@code
     * limit}), which a bulk action cannot apply: it changes every task of the selection, not one page.
     */
    static TaskFilter bulkFilter(ConsoleRequest r) {
        for (String paging : new String[] {"cursor", "limit"}) {
            if (r.param(paging) != null) {
                throw new BadRequestException("a bulk action applies to every task of the selection, not to a page:"
                        + " drop " + paging + "; nothing changed");
            }
        }
        return filter(r);
    }

    static int limit(String s) {
        if (s == null) {
            return TaskFilter.DEFAULT_LIMIT;
        }
        long n = number(s, "limit");
        if (n < 1 || n > TaskFilter.MAX_LIMIT) {
            throw new BadRequestException("limit must be 1 to " + TaskFilter.MAX_LIMIT + ", not " + n);
        }
        return (int) n;
    }

    static TaskState state(String s) {
        if (s == null || s.equalsIgnoreCase("any")) {
            return null;
        }
        try {
            return TaskState.valueOf(s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new BadRequestException(
                    "unknown state '" + s + "' (PENDING, RUNNING, SUCCEEDED, BLOCKED, CANCELLED)");
        }
    }

    static long number(String s, String name) {
        if (s == null) {
            throw new BadRequestException("give " + name);
        }
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            throw new BadRequestException(name + " is not a number: " + s);
        }
    }

    /** An ISO-8601 instant ({@code 2026-01-02T10:00:00Z}) or date-time without zone (UTC). */
    static Instant instant(String s, String name) {
        if (s == null) {
            return null;
        }
        try {
            return Instant.parse(s.strip());
        } catch (DateTimeParseException e) {
            try {
                return java.time.LocalDateTime.parse(s.strip()).toInstant(java.time.ZoneOffset.UTC);
            } catch (DateTimeParseException e2) {
                throw new BadRequestException(name + " is not a time like 2026-01-02T10:00:00Z: " + s);
            }
        }
    }

    /** A version as the pages write it: epoch microseconds. */
    static Instant version(String s) {
        if (s == null) {
            return null;
        }
        long micros = number(s, "version");
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
    }

    static String version(Instant t) {
        return Long.toString(t.getEpochSecond() * 1_000_000L + t.getNano() / 1000);
    }

    /** The edited payload: {@code payload} as UTF-8 text or {@code payloadHex}; null keeps the stored one. */
    static byte[] payload(ConsoleRequest r) {
        if (r.params().get("payload") != null && r.param("editPayload") != null) {
            return r.params().get("payload").replace("\r\n", "\n").getBytes(StandardCharsets.UTF_8);
        }
        if (r.param("payloadHex") != null) {
            try {
                return HexFormat.of().parseHex(r.param("payloadHex").strip());
            } catch (IllegalArgumentException e) {
                throw new BadRequestException("payloadHex is not hexadecimal");
            }
        }
        return null;
    }
}

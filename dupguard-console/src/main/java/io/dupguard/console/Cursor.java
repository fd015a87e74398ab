package io.dupguard.console;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/** A keyset cursor: the last row's id and its sort key (a type or a time), URL-safe. */
record Cursor(long id, String text, Instant time) {
    static String of(long id, String text) {
        return text == null
                ? Long.toString(id)
                : id + "."
                        + Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    static String of(long id, Instant time) {
        return id + "~" + (time.getEpochSecond() * 1_000_000L + time.getNano() / 1000);
    }

    void requireTime(String cursor) {
        if (time == null) {
            throw new BadRequestException("not a page cursor of this list: " + cursor);
        }
    }

    static Cursor parse(String s) {
        if (s == null) {
            return null;
        }
        try {
            int dot = s.indexOf('.');
            int tilde = s.indexOf('~');
            if (dot > 0) {
                String text = new String(Base64.getUrlDecoder().decode(s.substring(dot + 1)), StandardCharsets.UTF_8);
                return new Cursor(Long.parseLong(s.substring(0, dot)), text, null);
            } else if (tilde > 0) {
                long micros = Long.parseLong(s.substring(tilde + 1));
                Instant t = Instant.ofEpochSecond(
                        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
                return new Cursor(Long.parseLong(s.substring(0, tilde)), null, t);
            }
            return new Cursor(Long.parseLong(s), null, null);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("not a page cursor: " + s);
        }
    }
}

package io.dupguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.IdempotencyKey;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The order in which a batch takes its keys is the byte order of their UTF-8 — what {@code COLLATE
 * "C"} sorts by on PostgreSQL and a binary column on MariaDB — so every caller locks shared keys in
 * one order, whichever Java strings (surrogate pairs included) they hold.
 */
class KeyOrderTest {
    private static final char[] ALPHABET = {
        'a', 'z', '~', '\u00e9', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffee', '\ufffd', '\ud83d', '\ude00',
        '\ud800', '\udc00', '\udbff', '\udfff'
    };

    @Test
    void codePointOrderIsTheByteOrderOfUtf8() {
        Random random = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            String a = text(random);
            String b = text(random);
            assertThat(Integer.signum(KeyOrder.compare(a, b)))
                    .as("%s vs %s", a, b)
                    .isEqualTo(Integer.signum(Arrays.compareUnsigned(utf8(a), utf8(b))));
        }
    }

    @Test
    void keysSortByScopeThenId() {
        IdempotencyKey a = IdempotencyKey.of("a", "\uffee");
        IdempotencyKey b = IdempotencyKey.of("a", "\ud83d\ude00");
        IdempotencyKey c = IdempotencyKey.of("b", "a");
        assertThat(KeyOrder.KEYS.compare(a, b)).isNegative();
        assertThat(KeyOrder.KEYS.compare(b, c)).isNegative();
        assertThat(KeyOrder.KEYS.compare(c, c)).isZero();
    }

    /** A string of well-formed pairs and BMP characters around the surrogate range. */
    private static String text(Random random) {
        StringBuilder s = new StringBuilder();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
            char c = ALPHABET[random.nextInt(ALPHABET.length)];
            if (Character.isHighSurrogate(c)) {
                s.append(c).append(ALPHABET[11 + random.nextInt(2) * 2]);
            } else if (!Character.isLowSurrogate(c)) {
                s.append(c);
            }
        }
        return s.toString();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

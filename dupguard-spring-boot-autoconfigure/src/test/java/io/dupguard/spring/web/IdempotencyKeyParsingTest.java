package io.dupguard.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The Idempotency-Key value: RFC 8941 sf-string or bare token, printable ASCII, bounded. */
class IdempotencyKeyParsingTest {
    private static String parse(String raw) {
        return IdempotencyKeys.parseKey(raw, 16, "Idempotency-Key");
    }

    @Test
    void quotedAndBareKeysAreAccepted() {
        assertThat(parse("\"8e03978e-40d5\"")).isEqualTo("8e03978e-40d5");
        assertThat(parse("8e03978e-40d5")).isEqualTo("8e03978e-40d5");
        assertThat(parse("  abc  ")).isEqualTo("abc");
        assertThat(parse("\"a b\\\"c\\\\\"")).isEqualTo("a b\"c\\");
    }

    @Test
    void badKeysAreRefusedNamingTheHeaderAndTheLimit() {
        assertThatThrownBy(() -> parse("\"\"")).hasMessageContaining("must not be empty");
        assertThatThrownBy(() -> parse("")).hasMessageContaining("must not be empty");
        assertThatThrownBy(() -> parse("a".repeat(17)))
                .hasMessageContaining("Idempotency-Key is 17 characters long; at most 16");
        assertThatThrownBy(() -> parse("a b"))
                .hasMessageContaining("character U+0020 at position 1")
                .hasMessageContaining("an unquoted key may hold ASCII letters, digits and");
        assertThatThrownBy(() -> parse("caf\u00e9")).hasMessageContaining("character U+00E9 at position 3");
        assertThatThrownBy(() -> parse("\"caf\u00e9\"")).hasMessageContaining("sf-string");
        assertThatThrownBy(() -> parse("\"a\\b\"")).hasMessageContaining("bad escape");
        assertThatThrownBy(() -> parse("\"a\"b\"")).hasMessageContaining("unescaped quote");
    }

    @Test
    void anUnterminatedQuotedKeyIsRefused() {
        for (String raw : new String[] {"\"abc", "\"", "\"abc\\\"", "  \"abc  "}) {
            assertThatThrownBy(() -> parse(raw)).as(raw).hasMessageContaining("does not end with an unescaped quote");
        }
        assertThat(parse("\"abc\\\\\"")).isEqualTo("abc\\");
    }

    @Test
    void bareKeysHoldTokenCharactersOnly() {
        assertThat(parse("aZ09!#$%&'*+-.^_")).isEqualTo("aZ09!#$%&'*+-.^_");
        assertThat(parse("`|~:/=")).isEqualTo("`|~:/=");
        for (String raw : new String[] {"a\"b", "a,b", "a;b", "a\\b", "a(b)", "{a}", "a\tb"}) {
            assertThatThrownBy(() -> parse(raw)).as(raw).hasMessageContaining("an unquoted key may hold");
        }
    }
}

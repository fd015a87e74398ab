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
        assertThatThrownBy(() -> parse("a b")).hasMessageContaining("printable ASCII without spaces");
        assertThatThrownBy(() -> parse("caf\u00e9")).hasMessageContaining("printable ASCII");
        assertThatThrownBy(() -> parse("\"caf\u00e9\"")).hasMessageContaining("sf-string");
        assertThatThrownBy(() -> parse("\"a\\b\"")).hasMessageContaining("bad escape");
        assertThatThrownBy(() -> parse("\"a\"b\"")).hasMessageContaining("unescaped quote");
    }
}

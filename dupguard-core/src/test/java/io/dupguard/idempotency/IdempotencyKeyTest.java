package io.dupguard.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.InvalidIdentifierException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeyTest {

    @Test
    void comparesExactlyByDefault() {
        assertThat(IdempotencyKey.of("s", "DB00x")).isNotEqualTo(IdempotencyKey.of("s", "Db00X"));
        assertThat(IdempotencyKey.of("s", "DB00x")).isEqualTo(IdempotencyKey.of("s", "DB00x"));
    }

    @Test
    void foldsCaseOnlyWhenAsked() {
        assertThat(IdempotencyKey.ofIgnoringCase("s", "DB00x")).isEqualTo(IdempotencyKey.ofIgnoringCase("s", "Db00X"));
        assertThat(IdempotencyKey.ofIgnoringCase("s", "DB00x").key()).isEqualTo("db00x");
    }

    @Test
    void normalisesToNfcSoEquivalentSpellingsAreOneKey() {
        String composed = "caf\u00e9";
        String decomposed = "cafe\u0301";
        assertThat(IdempotencyKey.of("s", decomposed)).isEqualTo(IdempotencyKey.of("s", composed));
    }

    @Test
    void scopesSeparateTheSameKey() {
        assertThat(IdempotencyKey.of("tenant-1", "k")).isNotEqualTo(IdempotencyKey.of("tenant-2", "k"));
    }

    @Test
    void acceptsTheLongestKey() {
        assertThat(IdempotencyKey.of("s", "x".repeat(255)).key()).hasSize(255);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t", "a\nb", "a\u0000b", "a\u007fb"})
    void rejectsBlankAndControlCharacterKeys(String bad) {
        assertThatThrownBy(() -> IdempotencyKey.of("s", bad))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessageContaining("idempotency key");
    }

    @Test
    void rejectsOversizedKeysInsteadOfTruncating() {
        assertThatThrownBy(() -> IdempotencyKey.of("s", "x".repeat(256)))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessage("idempotency key must be at most 255 characters, was 256");
    }

    @Test
    void rejectsNullKey() {
        assertThatThrownBy(() -> IdempotencyKey.of("s", null))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessage("idempotency key must not be null");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a b", "a:b", "a/b", "ü"})
    void rejectsMalformedScopes(String bad) {
        assertThatThrownBy(() -> IdempotencyKey.of(bad, "k"))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessageContaining("scope");
    }

    @Test
    void rejectsOversizedScope() {
        assertThatThrownBy(() -> IdempotencyKey.of("s".repeat(65), "k")).isInstanceOf(InvalidIdentifierException.class);
    }
}

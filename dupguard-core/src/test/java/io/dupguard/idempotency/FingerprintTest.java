package io.dupguard.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FingerprintTest {

    @Test
    void isTheSha256OfTheBytes() {
        assertThat(Fingerprint.ofString("abc").hex())
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void mapFingerprintIgnoresEntryOrder() {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("amount", "10");
        a.put("account", "A");
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("account", "A");
        b.put("amount", "10");
        assertThat(Fingerprint.ofFields(a)).isEqualTo(Fingerprint.ofFields(b));
    }

    @Test
    void differentValuesDiffer() {
        assertThat(Fingerprint.ofFields(Map.of("amount", "10")))
                .isNotEqualTo(Fingerprint.ofFields(Map.of("amount", "11")));
    }

    @Test
    void encodingIsUnambiguous() {
        assertThat(Fingerprint.ofFields(Map.of("a", "b", "c", "d")))
                .isNotEqualTo(Fingerprint.ofFields(Map.of("a", "bc", "", "d")));
        assertThat(Fingerprint.ofFields(Map.of("l", List.of("a,b"))))
                .isNotEqualTo(Fingerprint.ofFields(Map.of("l", List.of("a", "b"))));
    }

    @Test
    void noneNeverConflicts() {
        assertThat(Fingerprint.none().conflictsWith(Fingerprint.ofString("x"))).isFalse();
        assertThat(Fingerprint.ofString("x").conflictsWith(Fingerprint.none())).isFalse();
        assertThat(Fingerprint.ofString("x").conflictsWith(Fingerprint.ofString("y")))
                .isTrue();
    }

    @Test
    void roundTripsThroughHex() {
        Fingerprint fp = Fingerprint.ofString("x");
        assertThat(Fingerprint.ofHex(fp.hex())).isEqualTo(fp);
        assertThat(Fingerprint.ofHex("")).isEqualTo(Fingerprint.none());
        assertThatThrownBy(() -> Fingerprint.ofHex("zz")).isInstanceOf(IllegalArgumentException.class);
    }
}

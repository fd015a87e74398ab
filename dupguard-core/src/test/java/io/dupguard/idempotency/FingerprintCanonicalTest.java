package io.dupguard.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link Fingerprint#ofFields} must be the same for equal content in every JVM: a legitimate retry
 * reaching another replica must never read as a different payload.
 */
class FingerprintCanonicalTest {
    /** The payload a child JVM fingerprints too; {@code Set.of} iterates in a per-JVM order. */
    static Map<String, Object> payload() {
        return Map.of(
                "items", Set.of("sku-1", "sku-2", "sku-3", "sku-4", "sku-5", "sku-6", "sku-7", "sku-8"),
                "tags", Set.of(Set.of("a", "b"), Set.of("c")),
                "amount", "10.00");
    }

    /** Prints {@code payload()}'s fingerprint; run in child JVMs by the test below. */
    public static void main(String[] args) {
        System.out.print(Fingerprint.ofFields(payload()).hex());
    }

    @Test
    void setOfFingerprintsAlikeInSeparateJvms() throws Exception {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            seen.add(childFingerprint());
        }
        seen.add(Fingerprint.ofFields(payload()).hex());

        assertThat(seen).hasSize(4).allMatch(h -> h.equals(seen.get(0)));
    }

    @Test
    void equalSetsOfAnyKindAndCapacityFingerprintAlike() {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            values.add("v" + i);
        }
        Set<String> small = new HashSet<>(values);
        Set<String> large = new HashSet<>(4096);
        large.addAll(values);
        List<String> backwards = new ArrayList<>(values);
        Collections.reverse(backwards);
        Set<String> reversed = new LinkedHashSet<>(backwards);
        Set<String> sorted = new TreeSet<>(values);

        Fingerprint expected = Fingerprint.ofFields(Map.of("s", small));
        assertThat(Fingerprint.ofFields(Map.of("s", large))).isEqualTo(expected);
        assertThat(Fingerprint.ofFields(Map.of("s", reversed))).isEqualTo(expected);
        assertThat(Fingerprint.ofFields(Map.of("s", sorted))).isEqualTo(expected);
        assertThat(Fingerprint.ofFields(Map.of("s", Set.copyOf(values)))).isEqualTo(expected);
    }

    @Test
    void listsKeepTheirOrderAndDifferentSetsDiffer() {
        assertThat(Fingerprint.ofFields(Map.of("l", List.of("a", "b"))))
                .isNotEqualTo(Fingerprint.ofFields(Map.of("l", List.of("b", "a"))));
        assertThat(Fingerprint.ofFields(Map.of("s", Set.of("a", "b"))))
                .isNotEqualTo(Fingerprint.ofFields(Map.of("s", Set.of("a", "c"))));
    }

    @Test
    void arraysAreEncodedByContentNotIdentity() {
        assertThat(Fingerprint.ofFields(Map.of("a", new int[] {1, 2})))
                .isEqualTo(Fingerprint.ofFields(Map.of("a", new int[] {1, 2})))
                .isEqualTo(Fingerprint.ofFields(Map.of("a", List.of(1, 2))));
        assertThat(Fingerprint.ofFields(Map.of("a", new String[] {"x"})))
                .isNotEqualTo(Fingerprint.ofFields(Map.of("a", new String[] {"y"})));
    }

    @Test
    void mapKeysThatPrintAlikeAreRefused() {
        assertThatThrownBy(() -> Fingerprint.ofFields(Map.of("m", Map.of(1, "a", "1", "b"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'1'");
    }

    @Test
    void loneSurrogatesDoNotCollide() {
        assertThat(Fingerprint.ofString("k\uD800")).isNotEqualTo(Fingerprint.ofString("k\uDBFF"));
        assertThat(Fingerprint.ofString("k\uD800")).isNotEqualTo(Fingerprint.ofString("k?"));
        // Well-formed text keeps the fingerprint it always had (UTF-8 bytes).
        assertThat(Fingerprint.ofString("k\uD83D\uDE00"))
                .isEqualTo(Fingerprint.of("k\uD83D\uDE00".getBytes(StandardCharsets.UTF_8)));
    }

    private static String childFingerprint() throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(
                        java.toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        FingerprintCanonicalTest.class.getName())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}

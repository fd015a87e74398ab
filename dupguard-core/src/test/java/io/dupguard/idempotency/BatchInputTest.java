package io.dupguard.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.memory.InMemoryIdempotencyStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BatchInputTest {
    private final Idempotency idem = Idempotency.of(new InMemoryIdempotencyStore());

    @Test
    void emptyNullAndOversizedBatchesAreRefusedNamingTheLimit() {
        List<BatchEntry> tooMany = IntStream.rangeClosed(0, Idempotency.MAX_BATCH_SIZE)
                .mapToObj(i -> BatchEntry.of(IdempotencyKey.of("s", "k" + i)))
                .toList();

        assertThatThrownBy(() -> idem.claimBatch(List.of(), String.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> idem.claimBatch(null, String.class)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() ->
                        idem.claimBatch(Arrays.asList(BatchEntry.of(IdempotencyKey.of("s", "a")), null), String.class))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> idem.claimBatch(tooMany, String.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MAX_BATCH_SIZE = 1000")
                .hasMessageContaining("1001");
        assertThatThrownBy(() -> idem.claimBatch(tooMany.subList(0, 1), Thread.class))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keysNotHeldAndKeysReportedTwiceAreRefused() {
        List<BatchEntry> batch = new ArrayList<>(List.of(BatchEntry.of(IdempotencyKey.of("s", "a"))));
        assertThatThrownBy(() -> idem.<String, RuntimeException>executeBatch(batch, String.class, (claimed, p) -> {
                    p.done(IdempotencyKey.of("s", "a"), "x");
                    p.done(IdempotencyKey.of("s", "a"), "y");
                }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already reported");
        // The done entry was recorded before the exception propagated.
        assertThat(idem.execute(IdempotencyKey.of("s", "a"), Fingerprint.none(), String.class, () -> "z")
                        .value())
                .isEqualTo("x");
        try (BatchClaim<String> claim =
                idem.claimBatch(List.of(BatchEntry.of(IdempotencyKey.of("s", "b"))), String.class)) {
            assertThatThrownBy(() -> claim.complete(java.util.Map.of(IdempotencyKey.of("s", "other"), "v")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not held");
        }
    }
}

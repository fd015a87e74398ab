package io.dupguard.jdbc.dedupe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.jdbc.SqlDialect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class H2DedupeTest extends DedupeContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }

    @Override
    Comparison guardComparison() {
        return Comparison.EXACT;
    }

    @Test
    void guardRefusesAComparisonH2CannotEnforce() {
        assertThatThrownBy(
                        () -> dedupe().compare(Comparison.IGNORE_CASE).build().guard())
                .isInstanceOf(DedupeException.class)
                .hasMessageContaining("--compare ignore-case");
    }

    @Test
    @Timeout(30) // a hang guard: without the stop check the pause below lasts a minute per batch
    void aSlowRateStopsBetweenBatchesAsSoonAsAsked() {
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        ApplyResult result =
                dedupe().batchSize(1).rate(Rate.parse("1/min")).build().apply(p -> stop.set(true), stop::get);

        assertThat(result.batches()).isEqualTo(1);
        assertThat(result.finished()).isFalse();
    }

    @Test
    void nfcNeedsPostgres() {
        assertThatThrownBy(() -> dedupe().compare(Comparison.NFC).build().scan())
                .isInstanceOf(DedupeException.class)
                .hasMessageContaining("nfc");
    }
}

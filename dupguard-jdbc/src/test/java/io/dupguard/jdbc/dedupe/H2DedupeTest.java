package io.dupguard.jdbc.dedupe;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.jdbc.SqlDialect;
import org.junit.jupiter.api.Test;

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
    void nfcNeedsPostgres() {
        assertThatThrownBy(() -> dedupe().compare(Comparison.NFC).build().scan())
                .isInstanceOf(DedupeException.class)
                .hasMessageContaining("nfc");
    }
}

package io.dupguard.jdbc.dedupe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class DedupeParsingTest {
    @Test
    void rateReadsRowsKeysAndMinutes() {
        assertThat(Rate.parse("500/s")).isEqualTo(new Rate(500, false));
        assertThat(Rate.parse("1000keys/min")).isEqualTo(new Rate(1000 / 60.0, true));
        assertThat(Rate.parse("120 rows / min").perSecond()).isEqualTo(2.0);
        assertThat(Rate.parse("unlimited").unlimited()).isTrue();
        assertThat(Rate.parse("1000keys/min")).hasToString("1000 keys/min");
    }

    @Test
    void rateRefusesWhatItCannotRead() {
        assertThatThrownBy(() -> Rate.parse("fast"))
                .hasMessageContaining("--rate")
                .hasMessageContaining("fast");
        assertThatThrownBy(() -> Rate.parse("0/s")).hasMessageContaining("above 0");
        assertThatThrownBy(() -> new Rate(-1, false)).hasMessageContaining("rate");
    }

    @Test
    void keepReadsTheSeedsRuleAndCustomOrderings() {
        assertThat(Keep.parse("oldest:created_at").terms()).containsExactly(new Keep.Term("created_at", false));
        assertThat(Keep.parse("newest:updated_at").terms()).containsExactly(new Keep.Term("updated_at", true));
        assertThat(Keep.parse("order:verified DESC, created_at").terms())
                .containsExactly(new Keep.Term("verified", true), new Keep.Term("created_at", false));
        assertThatThrownBy(() -> Keep.parse("first:id")).hasMessageContaining("--keep");
        assertThatThrownBy(() -> Keep.parse("created_at")).hasMessageContaining("oldest:COLUMN");
    }

    @Test
    void comparisonsCombineAndExactIsTheEmptySet() {
        assertThat(Comparison.parse("trim,ignore-case")).isEqualTo(EnumSet.of(Comparison.TRIM, Comparison.IGNORE_CASE));
        assertThat(Comparison.parse("exact")).isEmpty();
        assertThat(Comparison.describe(Comparison.parse("exact"))).isEqualTo("exact");
        assertThatThrownBy(() -> Comparison.parse("ci"))
                .hasMessageContaining("--compare")
                .hasMessageContaining("'ci'");
    }

    @Test
    void builderRefusesBadValuesNamingTheOption() {
        var b = Dedupe.builder(new org.h2.jdbcx.JdbcDataSource());
        assertThatThrownBy(() -> b.batchSize(0)).hasMessageContaining("--batch");
        assertThatThrownBy(() -> b.key("a", "A")).hasMessageContaining("twice");
        assertThatThrownBy(() -> b.table("1table")).hasMessageContaining("--table");
        assertThatThrownBy(b::build).hasMessageContaining("--table is required");
    }
}

package io.dupguard.jdbc.dedupe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.jdbc.SqlDialect;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class MariaDbDedupeIT extends DedupeContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.MYSQL;
    }

    @Test
    void exactGuardOnACaseInsensitiveCollationIsRefusedNamingTheCollation() throws SQLException {
        Dedupe dedupe = dedupe().rate(Rate.UNLIMITED).build();
        dedupe.apply(p -> {}, () -> false);

        assertThatThrownBy(dedupe::guard)
                .isInstanceOf(DedupeException.class)
                .hasMessageContaining("utf8mb4_general_ci")
                .hasMessageContaining("K6");
        assertThat(count(TABLE)).isEqualTo(9);
    }
}

package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Which failures a store runs again ({@link JdbcAccess#isTransient}): rolled back, not an outage. */
class TransientErrorsTest {
    @Test
    void aLostGaleraCertificationIsTransient() {
        assertThat(JdbcAccess.isTransient(new SQLException(
                        "Deadlock found when trying to get lock; try restarting transaction", "40001", 1213)))
                .isTrue();
        assertThat(JdbcAccess.isTransient(new SQLException("Deadlock found", null, 1213)))
                .isTrue();
    }

    @Test
    void aGaleraNodeNotReadyIsTransientButAnUnknownCommandIsNot() {
        assertThat(JdbcAccess.isTransient(
                        new SQLException("WSREP has not yet prepared node for application use", "08S01", 1047)))
                .isTrue();
        assertThat(JdbcAccess.isTransient(new SQLException("Unknown command", "08S01", 1047)))
                .isFalse();
    }

    @Test
    void deadlocksAndSerializationFailuresOfEveryDatabaseAreTransientAndOtherErrorsNot() {
        assertThat(JdbcAccess.isTransient(new SQLException("deadlock detected", "40P01")))
                .isTrue();
        assertThat(JdbcAccess.isTransient(new SQLException("could not serialize access", "40001")))
                .isTrue();
        assertThat(JdbcAccess.isTransient(new SQLException("Duplicate entry", "23000", 1062)))
                .isFalse();
        assertThat(JdbcAccess.isTransient(new SQLException("Connection refused", "08001")))
                .isFalse();
    }
}

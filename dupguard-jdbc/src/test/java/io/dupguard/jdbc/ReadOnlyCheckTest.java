package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.ReadOnlyStoreException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which driver errors mean "this server takes no writes" (K7); the real servers are in *ReadOnlyReplicaIT. */
class ReadOnlyCheckTest {
    private static final String MARIADB_READ_ONLY =
            "The MariaDB server is running with the --read-only option so it cannot execute this statement";

    @Test
    void aReadOnlyTransactionStateIsARefusalOnEveryServer() {
        assertThat(ReadOnlyCheck.isReadOnlyRefusal(
                        new SQLException("cannot execute INSERT in a read-only transaction", "25006")))
                .isTrue();
        assertThat(ReadOnlyCheck.isReadOnlyRefusal(
                        new SQLException("Cannot execute statement in a READ ONLY" + " transaction", "25006", 1792)))
                .isTrue();
    }

    @Test
    void theReadOnlyOptionIsARefusalButAnotherOptionOfTheSameErrorIsNot() {
        assertThat(ReadOnlyCheck.isReadOnlyRefusal(new SQLException(MARIADB_READ_ONLY, "HY000", 1290)))
                .isTrue();
        assertThat(ReadOnlyCheck.isReadOnlyRefusal(new SQLException(
                        "The MySQL server is running with the --secure-file-priv option so it cannot execute this"
                                + " statement",
                        "HY000",
                        1290)))
                .isFalse();
    }

    @Test
    void aRefusalIsFoundAmongTheCauses() {
        SQLException wrapper =
                new SQLException("batch failed", "HY000", 0, new SQLException(MARIADB_READ_ONLY, "HY000", 1290));
        assertThat(ReadOnlyCheck.isReadOnlyRefusal(wrapper)).isTrue();
    }

    @Test
    void outagesAndConflictsAreNoRefusal() {
        assertThat(ReadOnlyCheck.isReadOnlyRefusal(new SQLException("connection refused", "08001")))
                .isFalse();
        assertThat(ReadOnlyCheck.isReadOnlyRefusal(new SQLException("duplicate key", "23505")))
                .isFalse();
        assertThat(ReadOnlyCheck.isReadOnlyRefusal(new SQLException("Duplicate entry", "23000", 1062)))
                .isFalse();
    }

    @Test
    void anH2DatabaseOpenedReadOnlyRefusesTheStoreNotAsAnOutage(@TempDir Path dir) {
        String url = "jdbc:h2:file:" + dir.resolve("k7") + ";DB_CLOSE_DELAY=0";
        IdempotencyKey key = IdempotencyKey.of("k7", "h2");
        assertThat(TestDatabases.store(h2(url)).claim(key, Fingerprint.none(), "owner", Duration.ofSeconds(30)))
                .isInstanceOf(Claim.Claimed.class);

        JdbcIdempotencyStore readOnly = TestDatabases.store(h2(url + ";ACCESS_MODE_DATA=r"));
        assertThatThrownBy(() -> readOnly.claim(
                        IdempotencyKey.of("k7", "h2-read-only"), Fingerprint.none(), "owner", Duration.ofSeconds(30)))
                .isInstanceOf(ReadOnlyStoreException.class)
                .isNotInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("jdbc(h2) is read-only")
                .hasMessageContaining("90097")
                .hasMessageContaining("must write to the primary");
    }

    private static JdbcDataSource h2(String url) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL(url);
        return ds;
    }
}

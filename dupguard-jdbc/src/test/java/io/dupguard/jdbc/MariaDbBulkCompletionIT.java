package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.jdbc.TestDatabases.Db;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * MariaDB Connector/J with {@code useBulkStmts=true} sends a JDBC batch as one bulk command and
 * answers every statement's count with {@code SUCCESS_NO_INFO}: a batch completion must still tell
 * the keys whose lease another caller took over.
 */
class MariaDbBulkCompletionIT {
    @Test
    void aBulkCompletionStillTellsTheKeyWhoseLeaseWasTakenOver() throws Exception {
        String table = "dupguard_test_bulk_" + Long.toHexString(System.nanoTime());
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabases.url(Db.MARIADB) + "&useServerPrepStmts=true&useBulkStmts=true");
        config.setMaximumPoolSize(2);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            try {
                JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                        .tableName(table)
                        .createSchemaIfMissing(true)
                        .build();
                List<IdempotencyKey> keys = List.of(
                        IdempotencyKey.of("bulk", "a"), IdempotencyKey.of("bulk", "b"), IdempotencyKey.of("bulk", "c"));
                List<Claim> claims =
                        store.claimAll(keys.stream().map(BatchEntry::of).toList(), "owner-a", Duration.ofMillis(500));
                assertThat(claims).allMatch(c -> c.equals(Claim.FRESH));
                await().atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(50))
                        .until(
                                () -> store.claim(keys.get(1), Fingerprint.none(), "owner-b", Duration.ofMinutes(1)),
                                c -> c instanceof Claim.Claimed);

                List<BatchCompletion> completions = keys.stream()
                        .map(k -> new BatchCompletion(k, Fingerprint.none(), RecordStatus.COMPLETED, new byte[] {7}))
                        .toList();
                assertThat(store.completeAll(completions, "owner-a", Duration.ofMinutes(1)))
                        .containsExactly(keys.get(1));
                assertThat(store.find(keys.get(0)))
                        .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.COMPLETED));
                assertThat(store.find(keys.get(1)))
                        .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.IN_PROGRESS));
            } finally {
                try (Connection c = ds.getConnection();
                        Statement st = c.createStatement()) {
                    st.execute("DROP TABLE IF EXISTS " + table);
                }
            }
        }
    }
}

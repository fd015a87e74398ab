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
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MariaDB batch completion: one statement on the server, with or without Connector/J's bulk
 * statements ({@code useBulkStmts=true} sends a JDBC batch as one bulk command and answers every
 * statement's count with {@code SUCCESS_NO_INFO}), and it still tells the keys whose lease another
 * caller took over.
 */
@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class MariaDbBulkCompletionIT {
    private static final String BULK = "&useServerPrepStmts=true&useBulkStmts=true";

    /** A test body on a store of its own table. */
    @FunctionalInterface
    private interface OnTable {
        void run(DataSource ds, JdbcIdempotencyStore store) throws Exception;
    }

    /** Runs {@code body} on a new table through a pool of {@code size} with the URL {@code options}; drops it. */
    private static void onOwnTable(String options, int size, OnTable body) throws Exception {
        String table = "dupguard_test_bulk_" + Long.toHexString(System.nanoTime());
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabases.url(Db.MARIADB) + options);
        config.setMaximumPoolSize(size);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            try {
                body.run(
                        ds,
                        JdbcIdempotencyStore.builder(ds)
                                .tableName(table)
                                .createSchemaIfMissing(true)
                                .build());
            } finally {
                try (Connection c = ds.getConnection();
                        Statement st = c.createStatement()) {
                    st.execute("DROP TABLE IF EXISTS " + table);
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", BULK})
    void aBatchCompletionStillTellsTheKeyWhoseLeaseWasTakenOver(String options) throws Exception {
        onOwnTable(options, 2, (ds, store) -> {
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
        });
    }

    /**
     * A batch completion is one statement on the server (one multi-table {@code UPDATE}, no per-key
     * {@code UPDATE}s, no read back), with and without bulk statements: the server's own counters of
     * the session (a pool of one connection) before and after.
     */
    @ParameterizedTest
    @ValueSource(strings = {"", BULK})
    void aBatchCompletionIsOneStatementOnTheServer(String options) throws Exception {
        onOwnTable(options, 1, (ds, store) -> {
            List<IdempotencyKey> keys = IntStream.range(0, 50)
                    .mapToObj(i -> IdempotencyKey.of("one", "k" + i))
                    .toList();
            assertThat(store.claimAll(keys.stream().map(BatchEntry::of).toList(), "owner-a", Duration.ofMinutes(1)))
                    .allMatch(c -> c.equals(Claim.FRESH));
            List<BatchCompletion> completions = keys.stream()
                    .map(k -> new BatchCompletion(
                            k,
                            Fingerprint.none(),
                            k.key().equals("k7") ? RecordStatus.FAILED : RecordStatus.COMPLETED,
                            k.key().getBytes(StandardCharsets.UTF_8)))
                    .toList();
            Map<String, Long> before = counters(ds);
            assertThat(store.completeAll(completions, "owner-a", Duration.ofMinutes(1)))
                    .isEmpty();
            Map<String, Long> after = counters(ds);
            assertThat(after.get("Com_update_multi") - before.get("Com_update_multi"))
                    .isOne();
            assertThat(after.get("Com_update") - before.get("Com_update")).isZero();
            assertThat(after.get("Com_select") - before.get("Com_select")).isZero();
            assertThat(store.find(keys.get(3))).hasValueSatisfying(r -> {
                assertThat(r.status()).isEqualTo(RecordStatus.COMPLETED);
                assertThat(r.payload()).isEqualTo("k3".getBytes(StandardCharsets.UTF_8));
            });
            assertThat(store.find(keys.get(7)))
                    .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.FAILED));
        });
    }

    /** The session's statement counters (the pool's one connection). */
    private static Map<String, Long> counters(DataSource ds) throws SQLException {
        Map<String, Long> counters = new HashMap<>();
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW SESSION STATUS WHERE Variable_name IN"
                        + " ('Com_update', 'Com_update_multi', 'Com_select')")) {
            while (rs.next()) {
                counters.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counters;
    }
}

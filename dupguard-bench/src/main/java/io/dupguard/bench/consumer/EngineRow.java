package io.dupguard.bench.consumer;

import io.dupguard.InvalidIdentifierException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.spring.DeliveryBatch;
import io.dupguard.spring.IdempotentExecution;
import io.dupguard.spring.SpringTransactionalIdempotency;
import io.dupguard.spring.TransactionalExecution;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * dupguard's batch dedup engine as the starter's Kafka batch listeners run it in the transactional
 * mode: each poll goes through {@link DeliveryBatch} over a {@link TransactionalExecution} (a
 * {@link SpringTransactionalIdempotency} and a {@link DataSourceTransactionManager} on the consumers'
 * pool), the records added as {@code IdempotentKafkaInterceptor.invokeBatch} adds them (key from the
 * {@code message-id} header, fingerprint of the value) and the listener writing the new records'
 * effects on the Spring transaction's connection. What it leaves out next to the interceptor: the
 * listener container and the reflective call of the listener method.
 */
final class EngineRow {
    static final String ENGINE = "dupguard batch engine (DeliveryBatch, transactional)";

    private EngineRow() {}

    /** The row on {@code db}; its records go to the table {@link SqlRows} creates. */
    static ConsumerRow of(Database db) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.admin)
                .tableName(SqlRows.DUPGUARD_TABLE)
                .build();
        IdempotentExecution execution = TransactionalExecution.transactional(
                new SpringTransactionalIdempotency(store, db.consumers, IdempotencyConfig.ofDefaults()),
                new DataSourceTransactionManager(db.consumers));
        return new ConsumerRow(
                ENGINE,
                "Spring transaction per poll (TransactionalExecution, DataSourceTransactionManager): DeliveryBatch"
                        + " adds each record (header key, value fingerprint; later copies in the poll left out),"
                        + " SpringTransactionalIdempotency.executeBatch = one claim statement inserting the completed"
                        + " rows, the listener gets the claimed records and writes one JDBC batch of their effects"
                        + " on the transaction's connection; COMMIT",
                true,
                poll -> poll(db, execution, poll),
                () -> db.truncate(SqlRows.DUPGUARD_TABLE));
    }

    private static void poll(Database db, IdempotentExecution execution, List<ConsumerRecord<String, String>> poll)
            throws Exception {
        DeliveryBatch<ConsumerRecord<String, String>> deliveries = new DeliveryBatch<>();
        for (ConsumerRecord<String, String> r : poll) {
            IdempotencyKey k;
            try {
                k = keyOf(r);
            } catch (IllegalArgumentException e) {
                deliveries.refuse(r, e);
                continue;
            }
            deliveries.add(r, k, Fingerprint.ofString(r.value()));
        }
        DeliveryBatch.Stop<ConsumerRecord<String, String>> stop = deliveries.run(
                execution,
                fresh -> {
                    Connection c = DataSourceUtils.getConnection(db.consumers);
                    try {
                        Database.writeEffects(c, fresh);
                    } finally {
                        DataSourceUtils.releaseConnection(c, db.consumers);
                    }
                    return null;
                },
                (e, fresh) -> null); // the listener names no record it failed at
        if (stop != null) {
            throw new IllegalStateException("the poll stopped at record " + stop.index() + ": " + stop);
        }
    }

    /**
     * The record's key as the interceptor's {@code header("message-id")} key function and its
     * {@code keyOf} build it: the header's last value in UTF-8 under the consumer scope.
     */
    private static IdempotencyKey keyOf(ConsumerRecord<String, String> r) {
        Header h = r.headers().lastHeader(Feed.KEY_HEADER);
        String k = h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
        if (k == null || k.isBlank()) {
            throw new IllegalArgumentException("record " + r.topic() + "-" + r.partition() + "@" + r.offset()
                    + " has no idempotency key (header " + Feed.KEY_HEADER + ")");
        }
        try {
            return IdempotencyKey.of(SqlRows.SCOPE, k);
        } catch (InvalidIdentifierException e) {
            throw new IllegalArgumentException("record key refused: " + e.getMessage(), e);
        }
    }
}

package io.dupguard.examples.payments;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.stereotype.Component;

/**
 * Applies ledger entries ({@code <account>:<amount>}, keyed by the producer's {@code message-id}
 * header), a poll at a time. dupguard's Kafka dedup calls it with the poll's new records only and,
 * in the transactional mode ({@code dupguard.store=jdbc}, or Redis with the database as backstop),
 * claims their keys in the same database transaction as the rows written here: a crash before the
 * commit leaves neither, a crash after it leaves both, and the redelivered records are left out. A
 * malformed entry is named with {@link BatchListenerFailedException}: the entries before it commit
 * with their keys, it is retried alone and then dead-lettered.
 */
@Component
@ConditionalOnProperty(name = "payments.ledger.enabled", havingValue = "true")
public class LedgerListener {
    private final JdbcTemplate jdbc;

    public LedgerListener(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @KafkaListener(topics = "${payments.ledger.topic}", groupId = "payments-ledger", batch = "true")
    public void onEntries(List<ConsumerRecord<String, String>> entries) {
        for (ConsumerRecord<String, String> entry : entries) {
            var id = entry.headers().lastHeader("message-id");
            String entryId = id == null ? "" : new String(id.value(), StandardCharsets.UTF_8);
            String[] parts =
                    entry.value() == null ? new String[0] : entry.value().split(":", 2);
            if (parts.length != 2) {
                // names the record: the records before it commit, it alone is retried, then dead-lettered
                throw new BatchListenerFailedException("malformed ledger entry " + entryId, entry);
            }
            jdbc.update(
                    "insert into example_ledger_entries (entry_id, account, amount) values (?, ?, ?)",
                    entryId,
                    parts[0],
                    new BigDecimal(parts[1]));
            CrashPoints.reach("ledger-mid-batch", entryId);
            CrashPoints.aroundCommit("ledger-before-commit", "ledger-after-commit", entryId);
        }
    }
}

package io.dupguard.docs;

import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.jdbc.JdbcProcessedMessages;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/** The snippets of docs/processed-messages.md. */
class ProcessedMessagesSnippets {

    static void withoutSpring(
            DataSource dataSource, IdempotencyConfig config, Connection connection, List<BatchEntry> entries)
            throws SQLException {
        // tag::without-spring[]
        JdbcProcessedMessages processed = JdbcProcessedMessages.builder(dataSource).build();
        JdbcTransactionalIdempotency dedup = JdbcTransactionalIdempotency.of(processed, config);
        dedup.executeBatch(connection, entries, Void.class, (claimed, progress) -> { /* effects */ });
        // end::without-spring[]
    }
}

package io.dupguard.bench.consumer;

import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.BatchWork;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcProcessedMessages;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.integration.jdbc.metadata.JdbcMetadataStore;
import org.springframework.integration.selector.MetadataStoreSelector;
import org.springframework.integration.support.MessageBuilder;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.messaging.Message;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The rows on one SQL database, each in one transaction per poll (the effects and, for the rows that
 * dedup, the processed-message records commit together): the no-dedup ceiling, a hand-written
 * processed-messages table, dupguard per record and per batch ({@link JdbcTransactionalIdempotency}
 * on the poll's connection with a {@code Void} result, as the starter's listeners run it in the
 * transactional mode: the claim writes the completed rows, no completion follows), Spring Integration's {@link MetadataStoreSelector} on a {@link
 * JdbcMetadataStore} and Camel's {@link JdbcMessageIdRepository} as its idempotent consumer uses it.
 */
final class SqlRows {
    static final String SCOPE = "kafka";
    static final String CEILING = "no dedup (ceiling)";
    static final String PER_RECORD = "dupguard per record";
    static final String BATCH = "dupguard batch";
    static final String HAND_WRITTEN = "hand-written processed table";
    static final String PROCESSED_PER_RECORD = "dupguard per record, processed table";
    static final String PROCESSED_BATCH = "dupguard batch, processed table";
    static final String DUPGUARD_PROCESSED_TABLE = "bench_consumer_dupguard_processed";
    static final String SI = "Spring Integration JdbcMetadataStore";
    static final String CAMEL = "Camel JdbcMessageIdRepository";
    static final String DUPGUARD_TABLE = "bench_consumer_dupguard";
    static final String PROCESSED_TABLE = "bench_consumer_processed";
    static final String SI_PREFIX = "BENCH_SI_";
    static final String SI_TABLE = SI_PREFIX + "METADATA_STORE";
    static final String CAMEL_TABLE = "bench_consumer_camel";

    private SqlRows() {}

    /** The rows of {@code db}, their tables created empty. */
    static List<ConsumerRow> of(Database db) throws SQLException, IOException {
        db.createDupguardTable(DUPGUARD_TABLE);
        for (String t : List.of(PROCESSED_TABLE, SI_TABLE, CAMEL_TABLE, DUPGUARD_PROCESSED_TABLE)) {
            db.execute("DROP TABLE IF EXISTS " + t);
        }
        db.execute("CREATE TABLE " + PROCESSED_TABLE + " (id VARCHAR(64) PRIMARY KEY)");
        // The DDL of Spring Integration's schema-*.sql and of Camel's JdbcMessageIdRepository.
        db.execute("CREATE TABLE " + SI_TABLE + " (METADATA_KEY VARCHAR(255) NOT NULL, METADATA_VALUE VARCHAR(4000),"
                + " REGION VARCHAR(100) NOT NULL, PRIMARY KEY (METADATA_KEY, REGION))");
        db.execute("CREATE TABLE " + CAMEL_TABLE + " (processorName VARCHAR(255), messageId VARCHAR(100),"
                + " createdAt TIMESTAMP, PRIMARY KEY (processorName, messageId))");
        JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(
                JdbcIdempotencyStore.builder(db.admin).tableName(DUPGUARD_TABLE).build());
        JdbcProcessedMessages processedTable = JdbcProcessedMessages.builder(db.admin)
                .tableName(DUPGUARD_PROCESSED_TABLE)
                .createSchemaIfMissing(true)
                .build();
        processedTable.dialect(); // creates the table before any timing
        JdbcTransactionalIdempotency lean = JdbcTransactionalIdempotency.of(processedTable);
        return List.of(
                new ConsumerRow(
                        CEILING,
                        "one transaction per poll: one JDBC batch inserting every record's effect row (copies too),"
                                + " COMMIT",
                        false,
                        poll -> inTransaction(db, c -> Database.writeEffects(c, poll)),
                        () -> {}),
                new ConsumerRow(
                        HAND_WRITTEN,
                        "one transaction per poll: "
                                + (db.postgres()
                                        ? "INSERT INTO processed SELECT unnest(?::text[]) ON CONFLICT DO NOTHING"
                                        : "INSERT IGNORE INTO processed VALUES (?),(?),…")
                                + " RETURNING id, one JDBC batch of the new records' effects, COMMIT",
                        true,
                        poll -> processed(db, poll),
                        () -> db.truncate(PROCESSED_TABLE)),
                new ConsumerRow(
                        PER_RECORD,
                        "one transaction per poll: per record JdbcTransactionalIdempotency.execute(connection, …,"
                                + " Void.class, …), as the starter's listeners call it = the claim inserting the"
                                + " completed row, the record's INSERT; COMMIT",
                        true,
                        poll -> inTransaction(db, c -> {
                            for (ConsumerRecord<String, String> r : poll) {
                                tx.execute(c, key(SCOPE, r), fingerprint(r), Void.class, conn -> {
                                    Database.writeEffect(conn, r);
                                    return null;
                                });
                            }
                        }),
                        () -> db.truncate(DUPGUARD_TABLE)),
                new ConsumerRow(
                        BATCH,
                        "one transaction per poll: JdbcTransactionalIdempotency.executeBatch(connection, …,"
                                + " Void.class, …), as the starter's batch listeners call it = one claim statement"
                                + " inserting the completed rows, one JDBC batch of the claimed records' effects;"
                                + " COMMIT",
                        true,
                        poll -> {
                            Entries entries = Entries.of(SCOPE, poll);
                            inTransaction(
                                    db,
                                    c -> entries.run(tx.executeBatch(c, entries.entries(), Void.class, (claimed, p) -> {
                                        Database.writeEffects(c, entries.recordsOf(claimed));
                                        entries.done(claimed, p);
                                    })));
                        },
                        () -> db.truncate(DUPGUARD_TABLE)),
                new ConsumerRow(
                        PROCESSED_PER_RECORD,
                        "one transaction per poll: per record JdbcTransactionalIdempotency.execute(connection, …,"
                                + " Void.class, …) on JdbcProcessedMessages (the listeners' default layout) = one"
                                + " insert-if-absent of key, 8-byte fingerprint and expiry, the record's INSERT;"
                                + " COMMIT",
                        true,
                        poll -> inTransaction(db, c -> {
                            for (ConsumerRecord<String, String> r : poll) {
                                lean.execute(c, key(SCOPE, r), fingerprint(r), Void.class, conn -> {
                                    Database.writeEffect(conn, r);
                                    return null;
                                });
                            }
                        }),
                        () -> db.truncate(DUPGUARD_PROCESSED_TABLE)),
                new ConsumerRow(
                        PROCESSED_BATCH,
                        "one transaction per poll: JdbcTransactionalIdempotency.executeBatch(connection, …,"
                                + " Void.class, …) on JdbcProcessedMessages = one statement answering every key"
                                + " of the poll ("
                                + (db.postgres()
                                        ? "unnest … ON CONFLICT DO UPDATE … WHERE expired or another fingerprint"
                                                + " RETURNING: a key not returned is a duplicate"
                                        : "INSERT … ON DUPLICATE KEY UPDATE … RETURNING")
                                + "), one JDBC batch of the new records' effects; COMMIT",
                        true,
                        poll -> {
                            Entries entries = Entries.of(SCOPE, poll);
                            inTransaction(
                                    db,
                                    c -> entries.run(
                                            lean.executeBatch(c, entries.entries(), Void.class, (claimed, p) -> {
                                                Database.writeEffects(c, entries.recordsOf(claimed));
                                                entries.done(claimed, p);
                                            })));
                        },
                        () -> db.truncate(DUPGUARD_PROCESSED_TABLE)),
                EngineRow.of(db),
                springIntegration(db),
                camel(db));
    }

    /**
     * Spring Integration's idempotent receiver: {@link MetadataStoreSelector#accept} per message
     * (what {@code IdempotentReceiverInterceptor} calls), one {@code putIfAbsent} on a {@link
     * JdbcMetadataStore} joining the poll's Spring transaction.
     */
    private static ConsumerRow springIntegration(Database db) {
        TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(db.consumers));
        JdbcMetadataStore store = new JdbcMetadataStore(db.consumers);
        store.setTablePrefix(SI_PREFIX);
        store.afterPropertiesSet();
        store.start();
        MetadataStoreSelector selector =
                new MetadataStoreSelector(m -> m.getHeaders().get(Feed.KEY_HEADER, String.class), store);
        return new ConsumerRow(
                SI,
                "Spring transaction per poll: per record a Message, MetadataStoreSelector.accept = putIfAbsent"
                        + " (INSERT … SELECT … HAVING COUNT(*)=0, a SELECT when it inserted nothing), the record's"
                        + " INSERT; COMMIT",
                true,
                poll -> inSpringTransaction(db, transactions, c -> {
                    for (ConsumerRecord<String, String> r : poll) {
                        Message<String> m = MessageBuilder.withPayload(r.value())
                                .setHeader(Feed.KEY_HEADER, Feed.id(r))
                                .build();
                        if (selector.accept(m)) {
                            Database.writeEffect(c, r);
                        }
                    }
                }),
                () -> db.truncate(SI_TABLE));
    }

    /**
     * Apache Camel's idempotent consumer on {@link JdbcMessageIdRepository}: {@code add} per message
     * (eager), the effect, {@code confirm} on success or {@code remove} on failure; the repository's
     * own transaction template joins the poll's Spring transaction.
     */
    private static ConsumerRow camel(Database db) {
        TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(db.consumers));
        JdbcMessageIdRepository repository = new JdbcMessageIdRepository(db.consumers, "bench");
        repository.setTableName(CAMEL_TABLE);
        repository.start();
        return new ConsumerRow(
                CAMEL,
                "Spring transaction per poll: per record add(id) = SELECT COUNT(*) + INSERT if absent, the record's"
                        + " INSERT, confirm(id) (no statement); COMMIT",
                true,
                poll -> inSpringTransaction(db, transactions, c -> {
                    for (ConsumerRecord<String, String> r : poll) {
                        String id = Feed.id(r);
                        if (repository.add(id)) {
                            try {
                                Database.writeEffect(c, r);
                            } catch (SQLException | RuntimeException e) {
                                repository.remove(id);
                                throw e;
                            }
                            repository.confirm(id);
                        }
                    }
                }),
                () -> db.truncate(CAMEL_TABLE));
    }

    /** The expert's hand-written dedup: a processed-messages table written with the effects. */
    private static void processed(Database db, List<ConsumerRecord<String, String>> poll) throws Exception {
        Map<String, ConsumerRecord<String, String>> firsts = new LinkedHashMap<>();
        for (ConsumerRecord<String, String> r : poll) {
            firsts.putIfAbsent(Feed.id(r), r);
        }
        inTransaction(db, c -> {
            List<ConsumerRecord<String, String>> fresh = new ArrayList<>(firsts.size());
            for (String id : claimProcessed(db, c, firsts.keySet())) {
                fresh.add(firsts.get(id));
            }
            Database.writeEffects(c, fresh);
        });
    }

    private static List<String> claimProcessed(Database db, Connection c, Set<String> ids) throws SQLException {
        String sql;
        if (db.postgres()) {
            sql = "INSERT INTO " + PROCESSED_TABLE
                    + " (id) SELECT unnest(?::text[]) ON CONFLICT DO NOTHING RETURNING id";
        } else {
            sql = "INSERT IGNORE INTO " + PROCESSED_TABLE + " (id) VALUES "
                    + String.join(",", Collections.nCopies(ids.size(), "(?)")) + " RETURNING id";
        }
        List<String> fresh = new ArrayList<>(ids.size());
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (db.postgres()) {
                ps.setArray(1, c.createArrayOf("text", ids.toArray()));
            } else {
                int i = 1;
                for (String id : ids) {
                    ps.setString(i++, id);
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    fresh.add(rs.getString(1));
                }
            }
        }
        return fresh;
    }

    /** Runs {@code body} in one transaction of a consumer connection (autocommit is off there). */
    static void inTransaction(Database db, SqlBody body) throws Exception {
        try (Connection c = db.consumers.getConnection()) {
            try {
                body.run(c);
                c.commit();
            } catch (Exception | Error e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * Runs {@code body} in a Spring transaction on the consumers' pool, on the transaction's
     * connection, which the peers' JdbcTemplates join.
     */
    static void inSpringTransaction(Database db, TransactionTemplate transactions, SqlBody body) {
        transactions.executeWithoutResult(status -> {
            Connection c = DataSourceUtils.getConnection(db.consumers);
            try {
                body.run(c);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                DataSourceUtils.releaseConnection(c, db.consumers);
            }
        });
    }

    /** Work on a connection. */
    @FunctionalInterface
    interface SqlBody {
        void run(Connection c) throws Exception;
    }

    /** The dedup key of a record, as the starter's {@code dupguard.kafka.key=header} builds it. */
    static IdempotencyKey key(String scope, ConsumerRecord<String, String> record) {
        return IdempotencyKey.of(scope, Feed.id(record));
    }

    /** The record's value is its fingerprint, as in the starter. */
    static Fingerprint fingerprint(ConsumerRecord<String, String> record) {
        return Fingerprint.of(record.value().getBytes(StandardCharsets.UTF_8));
    }

    /** The poll as batch entries, and the record of each entry's key (its first copy). */
    record Entries(List<BatchEntry> entries, Map<IdempotencyKey, ConsumerRecord<String, String>> records) {
        static Entries of(String scope, List<ConsumerRecord<String, String>> poll) {
            List<BatchEntry> entries = new ArrayList<>(poll.size());
            Map<IdempotencyKey, ConsumerRecord<String, String>> records = new HashMap<>();
            for (ConsumerRecord<String, String> r : poll) {
                IdempotencyKey k = key(scope, r);
                entries.add(new BatchEntry(k, fingerprint(r)));
                records.putIfAbsent(k, r);
            }
            return new Entries(entries, records);
        }

        /** Reports every claimed entry done. */
        void done(List<BatchEntry> claimed, BatchWork.Progress<Void> progress) {
            for (BatchEntry e : claimed) {
                progress.done(e.key(), null);
            }
        }

        /** Fails on any result other than a first run, a replay or a copy within the batch. */
        void run(List<BatchResult<Void>> results) {
            for (BatchResult<Void> r : results) {
                if (!(r instanceof BatchResult.First<?>
                        || r instanceof BatchResult.Replayed<?>
                        || r instanceof BatchResult.DuplicateInBatch<?>)) {
                    throw new IllegalStateException("unexpected batch result " + r);
                }
            }
        }

        List<ConsumerRecord<String, String>> recordsOf(List<BatchEntry> claimed) {
            List<ConsumerRecord<String, String>> out = new ArrayList<>(claimed.size());
            for (BatchEntry e : claimed) {
                out.add(records.get(e.key()));
            }
            return out;
        }
    }
}

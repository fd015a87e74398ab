package io.dupguard.docs;

import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.BatchResult;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import io.dupguard.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/** The snippets of docs/idempotency.md. */
class IdempotencySnippets {

    record Order(String id) {}

    record Message(String id, byte[] body) {}

    record Receipt(String id) {}

    static RedisIdempotencyStore sentinel() {
        // tag::sentinel[]
        RedisClient client = RedisClient.create("redis-sentinel://s1:26379,s2:26379,s3:26379/0#mymaster");
        RedisIdempotencyStore store = RedisIdempotencyStore.builder(client)
                .replicaAcks(2, Duration.ofSeconds(1))
                .build();
        // end::sentinel[]
        return store;
    }

    static void transactional(
            JdbcIdempotencyStore store, IdempotencyKey key, Fingerprint fingerprint, Connection connection, Order order)
            throws SQLException {
        // tag::transactional[]
        JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(store);
        Outcome<Long> id = tx.executeInTransaction(key, fingerprint, Long.class, conn -> insertOrder(conn, order));
        // or inside your own transaction (autocommit off, you commit):
        Outcome<Long> inYourTx = tx.execute(connection, key, fingerprint, Long.class, conn -> insertOrder(conn, order));
        // end::transactional[]
    }

    static List<BatchResult<Receipt>> batch(Idempotency idempotency, List<Message> messages) {
        // tag::batch[]
        List<BatchEntry> batch = messages.stream()
                .map(m -> new BatchEntry(IdempotencyKey.of("orders", m.id()), Fingerprint.of(m.body())))
                .toList();
        List<BatchResult<Receipt>> results = idempotency.executeBatch(batch, Receipt.class, (claimed, progress) -> {
            for (BatchEntry e : claimed) {
                progress.done(e.key(), handle(e));          // recorded with the batch's completion
            }
        });
        // end::batch[]
        return results;
    }

    static long insertOrder(Connection conn, Order order) throws SQLException {
        return 1L;
    }

    static Receipt handle(BatchEntry entry) {
        return new Receipt(entry.key().key());
    }
}

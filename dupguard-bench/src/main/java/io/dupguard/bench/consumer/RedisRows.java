package io.dupguard.bench.consumer;

import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * dupguard in store mode on Redis, the effects in the SQL database: the claims live in {@link
 * RedisIdempotencyStore}, the effect commits in the database, then the claims complete — the order
 * of the starter's store mode. Every run uses a scope of its own (the keys expire after {@link
 * #RETENTION}), so nothing needs deleting between runs.
 */
final class RedisRows implements AutoCloseable {
    static final String REDIS_BATCH = "dupguard batch, Redis store";
    static final Duration RETENTION = Duration.ofMinutes(10);

    private final RedisClient client;
    private final RedisIdempotencyStore store;
    private final Idempotency idempotency;
    private final AtomicLong runs = new AtomicLong(System.nanoTime());

    RedisRows(String redisUrl) {
        this.client = RedisClient.create(redisUrl);
        this.store = RedisIdempotencyStore.builder(client).build();
        this.idempotency = Idempotency.of(
                store, IdempotencyConfig.custom().retention(RETENTION).build());
    }

    /**
     * {@code Idempotency.execute} per record (claim, the effect committed, completion) and {@code
     * Idempotency.executeBatch} per poll (pipelined claims, one transaction of effects, pipelined
     * completions), each run in a scope of its own.
     */
    List<ConsumerRow> rows(Database db) {
        AtomicReference<String> perRecordScope = new AtomicReference<>();
        AtomicReference<String> batchScope = new AtomicReference<>();
        return List.of(
                new ConsumerRow(
                        "dupguard per record, Redis store",
                        "per record Idempotency.execute on RedisIdempotencyStore: SET NX claim, the record's INSERT"
                                + " + COMMIT in " + db.label + ", completion script",
                        true,
                        poll -> perRecord(db, perRecordScope.get(), poll),
                        () -> perRecordScope.set(nextScope())),
                new ConsumerRow(
                        REDIS_BATCH,
                        "per poll Idempotency.executeBatch on RedisIdempotencyStore: pipelined SET NX claims, one "
                                + db.label + " transaction with a JDBC batch of the claimed records' effects,"
                                + " pipelined completions",
                        true,
                        poll -> {
                            SqlRows.Entries entries = SqlRows.Entries.of(batchScope.get(), poll);
                            entries.run(idempotency.executeBatch(entries.entries(), Void.class, (claimed, p) -> {
                                SqlRows.inTransaction(db, c -> Database.writeEffects(c, entries.recordsOf(claimed)));
                                entries.done(claimed, p);
                            }));
                        },
                        () -> batchScope.set(nextScope())));
    }

    private String nextScope() {
        return "kafka-" + Long.toHexString(runs.incrementAndGet());
    }

    private void perRecord(Database db, String scope, List<ConsumerRecord<String, String>> poll) throws Exception {
        try (Connection c = db.consumers.getConnection()) {
            for (ConsumerRecord<String, String> r : poll) {
                idempotency.execute(SqlRows.key(scope, r), SqlRows.fingerprint(r), Void.class, () -> {
                    try {
                        Database.writeEffect(c, r);
                        c.commit();
                    } catch (Exception | Error e) {
                        c.rollback();
                        throw e;
                    }
                    return null;
                });
            }
        }
    }

    @Override
    public void close() {
        store.close();
        client.shutdown();
    }
}

package io.dupguard.bench.consumer;

import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.metadata.RedisMetadataStore;
import org.springframework.integration.selector.MetadataStoreSelector;
import org.springframework.integration.support.MessageBuilder;

/**
 * dupguard in store mode on Redis, the effects in the SQL database: the claims live in {@link
 * RedisIdempotencyStore}, the effect commits in the database, then the claims complete — the order
 * of the starter's store mode. Every run uses a scope of its own (the keys expire after {@link
 * #RETENTION}), so nothing needs deleting between runs.
 */
final class RedisRows implements AutoCloseable {
    static final String REDIS_BATCH = "dupguard batch, Redis store";
    static final String SI_REDIS = "Spring Integration RedisMetadataStore";
    static final String PER_RECORD_REDIS = "dupguard per record, Redis store";
    static final String PER_RECORD_REDIS_AWAITED = "dupguard per record, Redis store, completion awaited";
    static final String SI_REDIS_PER_RECORD = "Spring Integration RedisMetadataStore, commit per record";
    static final Duration RETENTION = Duration.ofMinutes(10);

    private final RedisClient client;
    private final RedisIdempotencyStore store;
    private final Idempotency idempotency;
    /** The per-record row's: the completion travels ahead of the next record's claim. */
    private final Idempotency pipelined;

    private final AtomicLong runs = new AtomicLong(System.nanoTime());
    /** Spring Integration's store: Spring Data Redis on Lettuce, one shared native connection. */
    private final LettuceConnectionFactory springRedis;
    /** The hash of the Spring Integration row's current run, deleted when the next one starts. */
    private final AtomicReference<String> siHash = new AtomicReference<>();

    RedisRows(String redisUrl) {
        this.client = RedisClient.create(redisUrl);
        io.lettuce.core.RedisURI uri = io.lettuce.core.RedisURI.create(redisUrl);
        this.springRedis = new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        springRedis.afterPropertiesSet();
        springRedis.start();
        this.store = RedisIdempotencyStore.builder(client).build();
        this.idempotency = Idempotency.of(
                store, IdempotencyConfig.custom().retention(RETENTION).build());
        this.pipelined = Idempotency.of(
                store,
                IdempotencyConfig.custom()
                        .retention(RETENTION)
                        .awaitCompletion(false)
                        .build());
    }

    /**
     * {@code Idempotency.execute} per record (claim, the effect committed, completion) and {@code
     * Idempotency.executeBatch} per poll (pipelined claims, one transaction of effects, pipelined
     * completions), each run in a scope of its own.
     */
    List<ConsumerRow> rows(Database db) {
        AtomicReference<String> perRecordScope = new AtomicReference<>();
        AtomicReference<String> awaitedScope = new AtomicReference<>();
        AtomicReference<String> batchScope = new AtomicReference<>();
        return List.of(
                new ConsumerRow(
                        PER_RECORD_REDIS,
                        "per record Idempotency.execute with awaitCompletion(false) on RedisIdempotencyStore: the"
                                + " previous record's completion script and this record's SET NX claim in one round"
                                + " trip, the record's INSERT + COMMIT in " + db.label
                                + " (dupguard.kafka.await-completion=false); a poll's last completion answered with"
                                + " the next poll's first claim",
                        true,
                        poll -> perRecord(pipelined, db, perRecordScope.get(), poll),
                        () -> perRecordScope.set(nextScope())),
                new ConsumerRow(
                        PER_RECORD_REDIS_AWAITED,
                        "per record Idempotency.execute on RedisIdempotencyStore (defaults): SET NX claim, the"
                                + " record's INSERT + COMMIT in " + db.label + ", completion script awaited",
                        true,
                        poll -> perRecord(idempotency, db, awaitedScope.get(), poll),
                        () -> awaitedScope.set(nextScope())),
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
                        () -> batchScope.set(nextScope())),
                springIntegration(db),
                springIntegrationPerRecord(db));
    }

    /**
     * Spring Integration's idempotent receiver on Redis with the shape of dupguard's per-record row:
     * per record {@code HSETNX}, then the record's effect in a transaction of its own (a record
     * listener's) — the same commit per record as {@code dupguard per record, Redis store}, which
     * the per-poll row above does not pay.
     */
    private ConsumerRow springIntegrationPerRecord(Database db) {
        AtomicReference<MetadataStoreSelector> selector = new AtomicReference<>();
        AtomicReference<String> hash = new AtomicReference<>();
        return new ConsumerRow(
                SI_REDIS_PER_RECORD,
                "per record a Message, MetadataStoreSelector.accept = RedisMetadataStore.putIfAbsent (HSETNX), then"
                        + " the record's INSERT + COMMIT in " + db.label,
                true,
                poll -> {
                    MetadataStoreSelector accept = selector.get();
                    try (Connection c = db.consumers.getConnection()) {
                        for (ConsumerRecord<String, String> r : poll) {
                            if (accept.accept(MessageBuilder.withPayload(r.value())
                                    .setHeader(Feed.KEY_HEADER, Feed.id(r))
                                    .build())) {
                                commitEffect(c, r);
                            }
                        }
                    }
                },
                () -> selector.set(freshSelector(hash, "bench-si-pr-")));
    }

    /**
     * Spring Integration's idempotent receiver on Redis: {@link MetadataStoreSelector#accept} per
     * record (what {@code IdempotentReceiverInterceptor} calls) = one {@code HSETNX} on a {@link
     * RedisMetadataStore} hash, then one transaction of the accepted records' effects per poll —
     * the cheapest way to combine it with a batch listener (and not crash-safe: a message is marked
     * before its effect commits). Each run uses a hash of its own.
     */
    private ConsumerRow springIntegration(Database db) {
        AtomicReference<MetadataStoreSelector> selector = new AtomicReference<>();
        return new ConsumerRow(
                SI_REDIS,
                "per record a Message, MetadataStoreSelector.accept = RedisMetadataStore.putIfAbsent (HSETNX);"
                        + " one " + db.label + " transaction with a JDBC batch of the accepted records' effects",
                true,
                poll -> {
                    MetadataStoreSelector accept = selector.get();
                    List<ConsumerRecord<String, String>> accepted = new ArrayList<>(poll.size());
                    for (ConsumerRecord<String, String> r : poll) {
                        if (accept.accept(MessageBuilder.withPayload(r.value())
                                .setHeader(Feed.KEY_HEADER, Feed.id(r))
                                .build())) {
                            accepted.add(r);
                        }
                    }
                    SqlRows.inTransaction(db, c -> Database.writeEffects(c, accepted));
                },
                () -> selector.set(freshSelector(siHash, "bench-si-")));
    }

    /** A selector on a hash of its own, named {@code prefix} + a new scope; the previous one is deleted. */
    private MetadataStoreSelector freshSelector(AtomicReference<String> hash, String prefix) {
        String previous = hash.getAndSet(prefix + nextScope());
        if (previous != null) {
            try (var c = client.connect()) {
                c.sync().unlink(previous);
            }
        }
        return new MetadataStoreSelector(
                m -> m.getHeaders().get(Feed.KEY_HEADER, String.class),
                new RedisMetadataStore(springRedis, hash.get()));
    }

    private String nextScope() {
        return "kafka-" + Long.toHexString(runs.incrementAndGet());
    }

    /** The record's effect in a transaction of its own, as a record listener commits it. */
    private static void commitEffect(Connection c, ConsumerRecord<String, String> r) throws Exception {
        try {
            Database.writeEffect(c, r);
            c.commit();
        } catch (Exception | Error e) {
            c.rollback();
            throw e;
        }
    }

    private static void perRecord(
            Idempotency idempotency, Database db, String scope, List<ConsumerRecord<String, String>> poll)
            throws Exception {
        try (Connection c = db.consumers.getConnection()) {
            for (ConsumerRecord<String, String> r : poll) {
                idempotency.execute(SqlRows.key(scope, r), SqlRows.fingerprint(r), Void.class, () -> {
                    commitEffect(c, r);
                    return null;
                });
            }
        }
    }

    @Override
    public void close() {
        store.close();
        client.shutdown();
        springRedis.destroy();
    }
}

package io.dupguard.spring.kafka;

import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kills a Kafka consumer deduplicated in store mode on the Redis store with {@code
 * dupguard.kafka.await-completion=false} — a real child JVM ({@link KafkaCrashApp}, {@code
 * --crash.mode=redis-store}) halted with {@code Runtime.halt} — at each step of a record listener's
 * dedup, restarts it, and counts the effects in PostgreSQL and the records in Redis.
 *
 * <p>With {@code await-completion=false} the dedup's call ({@code Idempotency.execute}) sends its
 * completion ({@code EVALSHA}) and returns; the container acks the record and delivers the next,
 * whose claim takes the answer before its listener runs; the poll's offsets commit after its last
 * record. The points, each halted before the offset commit of its record:
 *
 * <ul>
 *   <li>{@code record-before-complete} — in the N-th run, after its effect, before the completion is
 *       sent. Store mode is not crash-safe there, as docs/messaging.md and docs/idempotency.md say: the
 *       key stays in flight until its lease ({@code dupguard.idempotency.in-flight-lease}, 3 s here)
 *       ends, and the redelivered record then runs again. That message ends with two effect rows, one
 *       per JVM; every other message with one.
 *   <li>{@code record-sent} — once the N-th run's call has returned, its completion sent and its
 *       answer not taken (the next record's claim not sent). The restarted consumer gets the record
 *       again and the dedup skips it: one effect row per message.
 *   <li>{@code record-answer-taken} — in the N-th run before its effect: the answer to the completion
 *       before it has been taken (by this run's claim, or a duplicate's in between), and this run's
 *       claim holds its key in progress. The records it had run are skipped on redelivery; the N-th
 *       is taken over once its lease ends and runs once: one effect row per message.
 * </ul>
 *
 * <p>Every key ends COMPLETED in Redis, and the deliveries table shows the restarted consumer got
 * the records the halted one had run again.
 *
 * <p>Why a sent completion survives the halt, and when it does not: when {@code execute} returns,
 * Lettuce has handed the {@code EVALSHA} to the connection's Netty channel ({@code
 * Channel.writeAndFlush} from the listener thread), which queues the write as a task of the
 * channel's event loop thread. Until that thread has written it, the bytes are in the JVM's memory
 * and a halt loses them: a bare executor on this Redis (loopback), halted as its call returned,
 * left its key in progress in one of 30 child JVMs. Once written, the bytes belong to the kernel,
 * which the halt does not take back: on the loopback the write itself puts them in Redis's receive
 * queue; to a remote Redis the kernel sends what is left in the send buffer after the process dies
 * (unless data lay unread in the dead socket's receive buffer: Linux then resets the connection and
 * drops it). The {@code record-sent} point therefore halts once a read of the record, sent behind
 * the completion on the store's one connection, finds it completed; a completion lost in that
 * window is the {@code record-before-complete} case. The broker, the static membership and the two
 * children are {@link KafkaCrashIT}'s ({@link KafkaCrashRun}).
 */
class KafkaRedisCrashIT {
    /** The crash switch's N: the child halts at the N-th record its listener runs. */
    private static final int CRASH_AFTER = 8;

    private static final KafkaCrashRun RUN = new KafkaCrashRun("rcrash", KafkaCrashApp.REDIS_STORE_POINTS, CRASH_AFTER);
    private static final String SCOPE = "it-kafka-rcrash-" + RUN.run;
    private static final String REDIS_URL = System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379");

    private static RedisClient client;
    private static RedisIdempotencyStore store;

    @BeforeAll
    static void topicsAndTables() {
        RUN.create();
        RedisURI uri = RedisURI.create(REDIS_URL);
        client = RedisClient.create(uri);
        store = RedisIdempotencyStore.builder(client, uri).build();
    }

    @AfterAll
    static void drop() {
        RUN.drop();
        if (client != null) {
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                List<String> keys = c.sync().keys(store.keyPrefix() + "{" + SCOPE + ":*");
                if (!keys.isEmpty()) {
                    c.sync().del(keys.toArray(String[]::new));
                }
            } finally {
                store.close();
                client.shutdown();
            }
        }
    }

    @Test
    void aSentCompletionSurvivesTheHaltAndOneNotSentRunsAgainAfterItsLease() throws Exception {
        RUN.crashAndRestart(
                List.of(
                        "--crash.mode=redis-store",
                        "--dupguard.store=redis",
                        "--spring.data.redis.url=" + REDIS_URL,
                        "--dupguard.kafka.mode=store",
                        "--dupguard.kafka.await-completion=false",
                        "--dupguard.kafka.scope=" + SCOPE,
                        "--dupguard.idempotency.in-flight-lease=3s"),
                pids -> {
                    SoftAssertions softly = new SoftAssertions();
                    for (String point : KafkaCrashApp.REDIS_STORE_POINTS) {
                        check(softly, point, pids);
                    }
                    softly.assertAll();
                    everyKeyCompleted();
                });
    }

    private static void check(SoftAssertions softly, String point, KafkaCrashRun.Pids pids) {
        boolean twice = point.equals("record-before-complete");
        RUN.checkEffectsAndDeliveries(softly, point, KafkaCrashRun.MESSAGES + (twice ? 1 : 0));
        int crashedEffects = RUN.effectsOf(point, pids.crashed());
        // the message of the halted JVM's last effect: the N-th run's, or the (N-1)-th's at record-answer-taken
        String last = RUN.db.queryForObject(
                "select message_id from " + RUN.effects + " where message_id like ? and pid = " + pids.crashed()
                        + " order by id desc limit 1",
                String.class,
                RUN.like(point));
        // messages the halted JVM got and did not run: the one it had claimed at record-answer-taken
        List<String> claimedNotRun = RUN.db.queryForList(
                "select distinct d.message_id from " + RUN.deliveries + " d where d.topic = ? and d.pid = "
                        + pids.crashed() + " and not exists (select 1 from " + RUN.effects
                        + " f where f.message_id = d.message_id and f.pid = " + pids.crashed() + ")",
                String.class,
                RUN.topic(point));
        int runAndRedelivered = RUN.redelivered(point, pids, true);
        System.out.printf(
                "%s: %d effects by the halted JVM, its last %s; claimed and not run %s; %d records it had run"
                        + " redelivered%n",
                point, crashedEffects, last, claimedNotRun, runAndRedelivered);
        softly.assertThat(crashedEffects)
                .as("effects of %s by the JVM halted at its %d-th run", point, CRASH_AFTER)
                .isEqualTo(point.equals("record-answer-taken") ? CRASH_AFTER - 1 : CRASH_AFTER);
        softly.assertThat(runAndRedelivered)
                .as("records of %s the halted JVM had run, delivered again", point)
                .isPositive();
        softly.assertThat(deliveredTo(last, pids.restarted()))
                .as("%s (%s) delivered to the restarted JVM", last, point)
                .isTrue();
        softly.assertThat(effects(last, pids.crashed()))
                .as("effects of %s (%s) by the halted JVM", last, point)
                .isEqualTo(1);
        softly.assertThat(effects(last, pids.restarted()))
                .as("effects of %s (%s) by the restarted JVM", last, point)
                .isEqualTo(twice ? 1 : 0);
        if (point.equals("record-answer-taken")) {
            softly.assertThat(claimedNotRun)
                    .as("messages of %s the halted JVM had claimed and not run", point)
                    .hasSize(1);
            for (String id : claimedNotRun) {
                softly.assertThat(deliveredTo(id, pids.restarted()))
                        .as("%s (%s) delivered to the restarted JVM", id, point)
                        .isTrue();
                softly.assertThat(effects(id, pids.restarted()))
                        .as("effects of %s (%s) by the restarted JVM", id, point)
                        .isEqualTo(1);
            }
        } else {
            softly.assertThat(claimedNotRun)
                    .as("messages of %s the halted JVM got and did not run", point)
                    .isEmpty();
        }
    }

    private static boolean deliveredTo(String id, long pid) {
        return RUN.count("select count(*) from " + RUN.deliveries + " where message_id = ? and pid = " + pid, id) > 0;
    }

    private static int effects(String id, long pid) {
        return RUN.count("select count(*) from " + RUN.effects + " where message_id = ? and pid = " + pid, id);
    }

    /** Every message's key is COMPLETED in Redis (a completion the restarted child sent last may still travel). */
    private static void everyKeyCompleted() {
        Awaitility.await("every key COMPLETED in Redis")
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> {
                    SoftAssertions softly = new SoftAssertions();
                    for (String point : KafkaCrashApp.REDIS_STORE_POINTS) {
                        for (int i = 0; i < KafkaCrashRun.MESSAGES; i++) {
                            String id = RUN.id(point, i);
                            softly.assertThat(store.find(IdempotencyKey.of(SCOPE, id))
                                            .map(IdempotencyRecord::status)
                                            .orElse(null))
                                    .as("record of %s in Redis", id)
                                    .isEqualTo(RecordStatus.COMPLETED);
                        }
                    }
                    softly.assertAll();
                });
    }
}

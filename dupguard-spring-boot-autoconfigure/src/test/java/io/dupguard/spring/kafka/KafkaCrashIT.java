package io.dupguard.spring.kafka;

import java.util.List;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kills the Kafka consumer — a real child JVM ({@link KafkaCrashApp}) halted with {@code
 * Runtime.halt} — at each crash point of a record and a batch listener deduplicated by the starter's
 * {@link IdempotentKafkaInterceptor} (transactional mode, jdbc store on PostgreSQL), restarts it, and
 * counts the effects in PostgreSQL: one effect row per message id, though the topic holds a
 * producer's re-sends and the restarted consumer gets the records the dead one had taken again.
 *
 * <p>The broker is the in-process KRaft broker of the build's JVM ({@link KafkaItBroker}); each
 * point has its own topic (its messages and a re-send of every third) and consumer group. One child
 * is armed at every point: each listener parks at its point until all four are there, then the JVM
 * halts, so one crash leaves each listener at its own point. The consumers use static membership
 * ({@code group.instance.id}): the restarted child takes its dead predecessor's partitions at once
 * instead of after the session timeout. It starts with the armed child, its listener containers idle
 * until the armed child has died, and runs until every group has committed the end of its topic.
 * The deliveries table (written before the dedup, autocommitted) shows the restarted child got again
 * the records the halted one had taken. Logs: {@code target/kafka-crash-logs/<run>/}.
 */
class KafkaCrashIT {
    /** The crash switch's N: the child halts at the N-th record its listener runs. */
    private static final int CRASH_AFTER = 8;

    private static final KafkaCrashRun RUN = new KafkaCrashRun("crash", KafkaCrashApp.POINTS, CRASH_AFTER);
    private static final String IDEM = "it_kcrash_idem_" + RUN.run;

    @BeforeAll
    static void topicsAndTables() {
        RUN.create();
    }

    @AfterAll
    static void drop() {
        RUN.drop(IDEM);
    }

    @Test
    void everyMessageTakesEffectOnceWhereverTheConsumerHalts() throws Exception {
        RUN.crashAndRestart(
                List.of(
                        "--dupguard.store=jdbc",
                        "--dupguard.jdbc.idempotency-table=" + IDEM,
                        "--dupguard.kafka.mode=transactional"),
                pids -> {
                    SoftAssertions softly = new SoftAssertions();
                    for (String point : KafkaCrashApp.POINTS) {
                        check(softly, point, pids);
                    }
                    softly.assertAll();
                });
    }

    private static void check(SoftAssertions softly, String point, KafkaCrashRun.Pids pids) {
        RUN.checkEffectsAndDeliveries(softly, point, KafkaCrashRun.MESSAGES);
        int crashedEffects = RUN.effectsOf(point, pids.crashed());
        // Records the halted JVM had taken that the restarted JVM got again, by whether the halted JVM's
        // transaction for their message committed.
        int committedAndRedelivered = RUN.redelivered(point, pids, true);
        int rolledBackAndRedelivered = RUN.redelivered(point, pids, false);
        System.out.printf(
                "%s: %d effects committed by the halted JVM; redelivered to the restarted one: %d committed, %d"
                        + " rolled back%n",
                point, crashedEffects, committedAndRedelivered, rolledBackAndRedelivered);
        switch (point) {
            case "record-before-commit" -> {
                softly.assertThat(crashedEffects)
                        .as("effects the JVM halted in its %d-th record's transaction committed", CRASH_AFTER)
                        .isEqualTo(CRASH_AFTER - 1);
                softly.assertThat(rolledBackAndRedelivered)
                        .as("records of %s rolled back by the halt and delivered again", point)
                        .isPositive();
            }
            case "record-after-commit" -> {
                softly.assertThat(crashedEffects)
                        .as("effects the JVM halted after its %d-th record's commit committed", CRASH_AFTER)
                        .isEqualTo(CRASH_AFTER);
                softly.assertThat(committedAndRedelivered)
                        .as("records of %s committed before the halt and delivered again", point)
                        .isPositive();
            }
            case "batch-mid" -> {
                softly.assertThat(crashedEffects)
                        .as("effects the JVM halted mid-batch committed (its batch rolled back)")
                        .isLessThan(CRASH_AFTER);
                softly.assertThat(rolledBackAndRedelivered)
                        .as("records of %s rolled back by the halt and delivered again", point)
                        .isPositive();
            }
            case "batch-after-commit" -> {
                softly.assertThat(crashedEffects)
                        .as("effects the JVM halted after its batch's commit committed")
                        .isGreaterThanOrEqualTo(CRASH_AFTER);
                softly.assertThat(committedAndRedelivered)
                        .as("records of %s committed before the halt and delivered again", point)
                        .isPositive();
            }
            default -> throw new IllegalStateException(point);
        }
    }
}

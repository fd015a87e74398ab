package io.dupguard.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.test.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

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
    private static final String RUN =
            UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private static final String PREFIX = "it.crash." + RUN;
    private static final String EFFECTS = "it_kcrash_effects_" + RUN;
    private static final String DELIVERIES = "it_kcrash_deliveries_" + RUN;
    private static final String IDEM = "it_kcrash_idem_" + RUN;
    private static final String PG =
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    /** Message ids per point. */
    private static final int MESSAGES = 30;
    /** The crash switch's N: the child halts at the N-th record its listener runs. */
    private static final int CRASH_AFTER = 8;

    private static final JdbcTemplate db = new JdbcTemplate(new DriverManagerDataSource(PG));

    @BeforeAll
    static void topicsAndTables() {
        KafkaItBroker.topics(
                KafkaCrashApp.POINTS.stream().map(KafkaCrashIT::topic).toArray(String[]::new));
        db.execute("create table " + EFFECTS + " (id bigserial primary key, message_id text not null, pid bigint)");
        db.execute("create table " + DELIVERIES + " (id bigserial primary key, message_id text, pid bigint,"
                + " topic text not null, part int not null, off bigint not null)");
    }

    @AfterAll
    static void drop() {
        for (String t : List.of(EFFECTS, DELIVERIES, IDEM)) {
            db.execute("drop table if exists " + t);
        }
    }

    private static String topic(String point) {
        return PREFIX + "." + point;
    }

    private static String id(String point, int i) {
        return point + "-" + RUN + "-" + i;
    }

    @Test
    void everyMessageTakesEffectOnceWhereverTheConsumerHalts() throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer();
                Admin admin = Admin.create(
                        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaItBroker.bootstrapServers()))) {
            for (String point : KafkaCrashApp.POINTS) {
                produce(producer, point);
            }
            ChildJvm crashed = start(children, String.join(",", KafkaCrashApp.POINTS));
            // started ahead, its consumers idle until the armed child has died
            ChildJvm restarted = start(children, null);
            int status = crashed.awaitExit(Duration.ofSeconds(120));
            assertThat(status)
                    .as("exit status of the child armed at every point (log %s):%n%s", crashed.log(), crashed.tail(60))
                    .isEqualTo(KafkaCrashApp.HALT_STATUS);
            restarted.send("go");
            Awaitility.await("every group committed the end of its topic (log " + restarted.log() + ")")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        if (!restarted.isAlive()) {
                            throw new AssertionError("the restarted child ended:\n" + restarted.tail(60));
                        }
                        return allConsumed(admin);
                    });
            restarted.kill();
            SoftAssertions softly = new SoftAssertions();
            for (String point : KafkaCrashApp.POINTS) {
                check(softly, point, crashed.pid(), restarted.pid());
            }
            softly.assertAll();
        } catch (Exception | AssertionError e) {
            for (ChildJvm c : children) {
                System.out.println("===== " + c.log() + " (last lines)\n" + c.tail(80));
            }
            throw e;
        } finally {
            children.forEach(ChildJvm::kill);
        }
    }

    private static void check(SoftAssertions softly, String point, long crashedPid, long restartedPid) {
        String like = point + "-" + RUN + "-%";
        softly.assertThat(count("select count(*) from " + EFFECTS + " where message_id like ?", like))
                .as("effect rows of the messages of %s", point)
                .isEqualTo(MESSAGES);
        softly.assertThat(count("select count(distinct message_id) from " + EFFECTS + " where message_id like ?", like))
                .as("message ids of %s with an effect", point)
                .isEqualTo(MESSAGES);
        softly.assertThat(count(
                        "select count(*) from " + DELIVERIES + " where topic = ? and message_id like ?",
                        topic(point),
                        like))
                .as("deliveries of %s (%s records on the topic)", point, MESSAGES + MESSAGES / 3)
                .isGreaterThan(MESSAGES + MESSAGES / 3);
        int crashedEffects =
                count("select count(*) from " + EFFECTS + " where message_id like ? and pid = " + crashedPid, like);
        // Records the halted JVM had taken that the restarted JVM got again, by whether the halted JVM's
        // transaction for their message committed.
        String redelivered = "select count(*) from " + DELIVERIES + " d where d.topic = ? and d.pid = " + crashedPid
                + " and exists (select 1 from " + DELIVERIES + " e where e.topic = d.topic and e.part = d.part"
                + " and e.off = d.off and e.pid = " + restartedPid + ")"
                + " and %s exists (select 1 from " + EFFECTS + " f where f.message_id = d.message_id and f.pid = "
                + crashedPid + ")";
        int committedAndRedelivered = count(redelivered.formatted(""), topic(point));
        int rolledBackAndRedelivered = count(redelivered.formatted("not"), topic(point));
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

    private static int count(String sql, Object... args) {
        return db.queryForObject(sql, Integer.class, args);
    }

    private static KafkaProducer<String, String> producer() {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaItBroker.bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    /**
     * {@link #MESSAGES} messages and a re-send of every third (same id, same value, a new offset): the
     * topic holds real duplicates.
     */
    private static void produce(KafkaProducer<String, String> producer, String point) {
        for (int i = 0; i < MESSAGES; i++) {
            send(producer, point, i);
            if (i % 3 == 2) {
                send(producer, point, i - 1);
            }
        }
        producer.flush();
    }

    private static void send(KafkaProducer<String, String> producer, String point, int i) {
        String id = id(point, i);
        ProducerRecord<String, String> r = new ProducerRecord<>(topic(point), id, "credit " + i);
        r.headers().add(KafkaCrashApp.HEADER, id.getBytes(StandardCharsets.UTF_8));
        producer.send(r);
    }

    /** Whether every group has committed the end offset of every partition of its topic. */
    private static boolean allConsumed(Admin admin) throws Exception {
        for (String point : KafkaCrashApp.POINTS) {
            String topic = topic(point);
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(topic)
                    .partitionsToOffsetAndMetadata()
                    .get();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .partitions()
                    .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            for (var end : admin.listOffsets(latest).all().get().entrySet()) {
                OffsetAndMetadata c = committed.get(end.getKey());
                if (end.getValue().offset() > (c == null ? 0 : c.offset())) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Starts a child armed at {@code points} (comma-separated; null: nowhere). */
    private static ChildJvm start(List<ChildJvm> children, String points) throws Exception {
        List<String> options = new ArrayList<>();
        List<String> args = new ArrayList<>(List.of(
                "--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off",
                "--spring.kafka.bootstrap-servers=" + KafkaItBroker.bootstrapServers(),
                "--spring.kafka.consumer.auto-offset-reset=earliest",
                // static membership: a restarted child takes the partitions its dead predecessor held
                "--spring.kafka.consumer.properties.group.instance.id=kafka-crash-child",
                "--spring.datasource.url=" + PG,
                "--spring.datasource.hikari.maximum-pool-size=6",
                "--spring.datasource.hikari.minimum-idle=1",
                "--dupguard.store=jdbc",
                "--dupguard.http.enabled=false",
                "--dupguard.jdbc.idempotency-table=" + IDEM,
                "--dupguard.kafka.key=header",
                "--dupguard.kafka.mode=transactional",
                "--crash.prefix=" + PREFIX,
                "--crash.effects=" + EFFECTS,
                "--crash.deliveries=" + DELIVERIES));
        if (points != null) {
            options.add("-Dcrash.point=" + points);
            options.add("-Dcrash.after=" + CRASH_AFTER);
        } else {
            options.add("-Dcrash.await-go=true");
            args.add("--crash.auto-startup=false");
        }
        Path log = Path.of(
                "target",
                "kafka-crash-logs",
                RUN,
                children.size() + "-" + (points == null ? "restarted" : "armed") + ".log");
        ChildJvm child = ChildJvm.start(log, options, KafkaCrashApp.class, args);
        children.add(child);
        return child;
    }
}

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
import java.util.function.Consumer;
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
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * One run of a {@link KafkaCrashApp} crash test: its names (topics, consumer groups, effect and
 * deliveries tables by a random suffix), the records on the topics, and the two children — one
 * armed at every point, halted there, and one started ahead that consumes once the first has died
 * and runs until every group has committed the end of its topic. Logs: {@code
 * target/kafka-crash-logs/<run>/}.
 */
final class KafkaCrashRun {
    static final String PG =
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    /** Message ids per point. */
    static final int MESSAGES = 30;
    /** Records per point on its topic: the messages and a re-send of every third. */
    static final int RECORDS = MESSAGES + MESSAGES / 3;

    final String run = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    final String prefix;
    final String effects;
    final String deliveries;
    final List<String> points;
    final JdbcTemplate db = new JdbcTemplate(new DriverManagerDataSource(PG));
    private final int crashAfter;

    /** The pids of the armed (halted) child and of the restarted one. */
    record Pids(long crashed, long restarted) {}

    /**
     * @param name the run's name in its topics and tables
     * @param points the points the first child is armed at
     * @param crashAfter the crash switch's N
     */
    KafkaCrashRun(String name, List<String> points, int crashAfter) {
        this.prefix = "it." + name + "." + run;
        this.effects = "it_k" + name + "_effects_" + run;
        this.deliveries = "it_k" + name + "_deliveries_" + run;
        this.points = points;
        this.crashAfter = crashAfter;
    }

    /** Creates the points' topics, the effect table and the deliveries table. */
    void create() {
        KafkaItBroker.topics(points.stream().map(this::topic).toArray(String[]::new));
        db.execute("create table " + effects + " (id bigserial primary key, message_id text not null, pid bigint)");
        db.execute("create table " + deliveries + " (id bigserial primary key, message_id text, pid bigint,"
                + " topic text not null, part int not null, off bigint not null)");
    }

    /** Drops the run's tables and {@code others}. */
    void drop(String... others) {
        List<String> tables = new ArrayList<>(List.of(effects, deliveries));
        tables.addAll(List.of(others));
        for (String t : tables) {
            db.execute("drop table if exists " + t);
        }
    }

    String topic(String point) {
        return prefix + "." + point;
    }

    String id(String point, int i) {
        return point + "-" + run + "-" + i;
    }

    /** The SQL {@code like} pattern of the message ids of {@code point}. */
    String like(String point) {
        return point + "-" + run + "-%";
    }

    int count(String sql, Object... args) {
        return db.queryForObject(sql, Integer.class, args);
    }

    /**
     * Puts the records on every point's topic, halts a child armed at every point, lets the child
     * started ahead consume every topic to its end, then runs {@code check} on the pids (the restarted
     * child still running).
     *
     * @param childArgs the children's mode: store, dedup mode, their own settings
     */
    void crashAndRestart(List<String> childArgs, Consumer<Pids> check) throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer();
                Admin admin = Admin.create(
                        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaItBroker.bootstrapServers()))) {
            for (String point : points) {
                produce(producer, point);
            }
            ChildJvm crashed = start(children, childArgs, String.join(",", points));
            // started ahead, its consumers idle until the armed child has died
            ChildJvm restarted = start(children, childArgs, null);
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
            // checked while the restarted child runs: a completion it sent last is not cut off
            check.accept(new Pids(crashed.pid(), restarted.pid()));
        } catch (Exception | AssertionError e) {
            for (ChildJvm c : children) {
                System.out.println("===== " + c.log() + " (last lines)\n" + c.tail(80));
            }
            throw e;
        } finally {
            children.forEach(ChildJvm::kill);
        }
    }

    /**
     * What every point holds after the restart: {@code effectRows} effect rows over all {@link
     * #MESSAGES} message ids, and more deliveries than records on the topic.
     */
    void checkEffectsAndDeliveries(SoftAssertions softly, String point, int effectRows) {
        softly.assertThat(count("select count(*) from " + effects + " where message_id like ?", like(point)))
                .as("effect rows of the messages of %s", point)
                .isEqualTo(effectRows);
        softly.assertThat(count(
                        "select count(distinct message_id) from " + effects + " where message_id like ?", like(point)))
                .as("message ids of %s with an effect", point)
                .isEqualTo(MESSAGES);
        softly.assertThat(count(
                        "select count(*) from " + deliveries + " where topic = ? and message_id like ?",
                        topic(point),
                        like(point)))
                .as("deliveries of %s (%s records on the topic)", point, RECORDS)
                .isGreaterThan(RECORDS);
    }

    /** Effect rows of {@code point} written by {@code pid}. */
    int effectsOf(String point, long pid) {
        return count("select count(*) from " + effects + " where message_id like ? and pid = " + pid, like(point));
    }

    /**
     * Records of {@code point} the halted JVM had taken that the restarted JVM got again, by whether the
     * halted JVM's effect for their message exists ({@code withEffect}).
     */
    int redelivered(String point, Pids pids, boolean withEffect) {
        String sql = "select count(*) from " + deliveries + " d where d.topic = ? and d.pid = " + pids.crashed()
                + " and exists (select 1 from " + deliveries + " e where e.topic = d.topic and e.part = d.part"
                + " and e.off = d.off and e.pid = " + pids.restarted() + ")"
                + " and " + (withEffect ? "" : "not ") + "exists (select 1 from " + effects
                + " f where f.message_id = d.message_id and f.pid = " + pids.crashed() + ")";
        return count(sql, topic(point));
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
    private void produce(KafkaProducer<String, String> producer, String point) {
        for (int i = 0; i < MESSAGES; i++) {
            send(producer, point, i);
            if (i % 3 == 2) {
                send(producer, point, i - 1);
            }
        }
        producer.flush();
    }

    private void send(KafkaProducer<String, String> producer, String point, int i) {
        String id = id(point, i);
        ProducerRecord<String, String> r = new ProducerRecord<>(topic(point), id, "credit " + i);
        r.headers().add(KafkaCrashApp.HEADER, id.getBytes(StandardCharsets.UTF_8));
        producer.send(r);
    }

    /** Whether every group has committed the end offset of every partition of its topic. */
    private boolean allConsumed(Admin admin) throws Exception {
        for (String point : points) {
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

    /** Starts a child armed at {@code armed} (comma-separated; null: nowhere). */
    private ChildJvm start(List<ChildJvm> children, List<String> childArgs, String armed) throws Exception {
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
                "--dupguard.http.enabled=false",
                "--dupguard.kafka.key=header",
                "--crash.prefix=" + prefix,
                "--crash.effects=" + effects,
                "--crash.deliveries=" + deliveries));
        args.addAll(childArgs);
        if (armed != null) {
            options.add("-Dcrash.point=" + armed);
            options.add("-Dcrash.after=" + crashAfter);
        } else {
            options.add("-Dcrash.await-go=true");
            args.add("--crash.auto-startup=false");
        }
        Path log = Path.of(
                "target",
                "kafka-crash-logs",
                run,
                children.size() + "-" + (armed == null ? "restarted" : "armed") + ".log");
        ChildJvm child = ChildJvm.start(log, options, KafkaCrashApp.class, args);
        children.add(child);
        return child;
    }
}

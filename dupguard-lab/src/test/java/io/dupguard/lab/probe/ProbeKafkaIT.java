package io.dupguard.lab.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import io.dupguard.lab.LabCli;
import io.dupguard.lab.SecondLane;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * {@code dupguard probe kafka} on an in-process KRaft broker against two services of the test's
 * own, each four consumers (own threads, own clients, own database connections) in a group on a
 * topic of 4 partitions, writing an effect row into PostgreSQL per record: a naive one that inserts
 * for every record, and one that inserts in the transaction of dupguard's transactional
 * idempotency, keyed by the record's {@code message-id} header (a record without one is skipped).
 */
@Execution(ExecutionMode.CONCURRENT) // in the second lane: see SecondLane
@ResourceLock(SecondLane.LOCK)
class ProbeKafkaIT {
    static final String PG = ProbeIT.PG;
    static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);
    static final String NAIVE_TABLE = "probe_kafka_it_naive_" + SUFFIX;
    static final String SAFE_TABLE = "probe_kafka_it_safe_" + SUFFIX;
    static final String IDEM_TABLE = "probe_kafka_it_idem_" + SUFFIX;
    static final String NAIVE_TOPIC = "probe-kafka-it-naive-" + SUFFIX;
    static final String SAFE_TOPIC = "probe-kafka-it-safe-" + SUFFIX;
    static final String NAIVE_GROUP = "probe-kafka-it-naive-" + SUFFIX;
    static final String SAFE_GROUP = "probe-kafka-it-safe-" + SUFFIX;
    static final String KILL_NAIVE = "probe_kafka_it_kill_naive_" + SUFFIX;
    static final String KILL_SAFE = "probe_kafka_it_kill_safe_" + SUFFIX;
    static final String KILL_IDEM = "probe_kafka_it_kill_idem_" + SUFFIX;
    static final String BODY = "{\"ref\":\"{{key}}\",\"amount\":\"25.00\"}";
    static final Pattern REF = Pattern.compile("\"ref\":\"([^\"]*)\"");
    /** Consumers per service, one per partition: the copies of a record are handled at once. */
    static final int CONSUMERS = 4;

    static EmbeddedKafkaKraftBroker broker;
    static HikariDataSource pool;
    static final List<Service> services = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement()) {
            for (String t : List.of(NAIVE_TABLE, SAFE_TABLE, KILL_NAIVE, KILL_SAFE)) {
                s.execute("create table " + t + " (id bigserial primary key, ref text, message_id text)");
            }
        }
        broker = new EmbeddedKafkaKraftBroker(1, 4).kafkaPorts(0);
        broker.brokerProperty("offsets.topic.num.partitions", "1");
        broker.afterPropertiesSet();
        broker.addTopics(NAIVE_TOPIC, SAFE_TOPIC, KILL_NAIVE, KILL_SAFE);

        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(PG);
        hc.setMaximumPoolSize(CONSUMERS);
        pool = new HikariDataSource(hc);
        JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(JdbcIdempotencyStore.builder(pool)
                .tableName(IDEM_TABLE)
                .createSchemaIfMissing(true)
                .build());

        for (int i = 0; i < CONSUMERS; i++) {
            services.add(new Service(NAIVE_GROUP, NAIVE_TOPIC, (db, r) -> {
                insert(db, NAIVE_TABLE, r);
                db.commit();
            }));
            services.add(new Service(SAFE_GROUP, SAFE_TOPIC, (db, r) -> {
                String id = header(r, "message-id");
                if (id == null) {
                    return; // a record without an id is not processed
                }
                try {
                    tx.execute(db, IdempotencyKey.of("probe-kafka-it", id), Fingerprint.none(), Void.class, c -> {
                        insert(c, SAFE_TABLE, r);
                        return null;
                    });
                    db.commit();
                } catch (RuntimeException | SQLException e) {
                    db.rollback();
                    throw e;
                }
            }));
        }
        for (Service s : services) {
            assertThat(s.assigned.await(60, TimeUnit.SECONDS))
                    .as("consumer of %s joined its group", s.group)
                    .isTrue();
        }
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString());
        try (Admin admin = Admin.create(p)) {
            // every consumer holds a partition of its topic once the joins' rebalances are over
            Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(
                            admin.describeConsumerGroups(List.of(NAIVE_GROUP, SAFE_GROUP))
                                    .all()
                                    .get(10, TimeUnit.SECONDS)
                                    .values())
                    .allSatisfy(g -> {
                        assertThat(g.groupState()).isEqualTo(GroupState.STABLE);
                        assertThat(g.members()).hasSize(CONSUMERS).allSatisfy(m -> assertThat(
                                        m.assignment().topicPartitions())
                                .hasSize(1));
                    }));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        for (Service s : services) {
            s.close();
        }
        if (pool != null) {
            pool.close();
        }
        if (broker != null) {
            broker.destroy();
        }
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement()) {
            for (String t : List.of(NAIVE_TABLE, SAFE_TABLE, IDEM_TABLE, KILL_NAIVE, KILL_SAFE, KILL_IDEM)) {
                s.execute("drop table if exists " + t);
            }
        }
    }

    static List<String> args(String bootstrap, String topic, String group, String table, String... more) {
        List<String> a = new ArrayList<>(List.of(
                "probe",
                "kafka",
                "--bootstrap-servers",
                bootstrap,
                "--topic",
                topic,
                "--group",
                group,
                "--body",
                BODY,
                "--effects-jdbc-url",
                PG,
                "--effects-sql",
                "select count(*) from " + table + " where ref = :key",
                "--copies",
                "4",
                "--keys",
                "2",
                "--settle",
                "1s",
                "--lost-after",
                "20s"));
        a.addAll(List.of(more));
        return a;
    }

    @Test
    void findsTheNaiveConsumersDuplicates() {
        LabCli.Result r = LabCli.run(args(broker.getBrokersAsString(), NAIVE_TOPIC, NAIVE_GROUP, NAIVE_TABLE)
                .toArray(String[]::new));

        System.out.println(r.out()); // the report docs/probe.md shows, in the test's output
        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isEqualTo(1);
        assertThat(r.out())
                .containsPattern("FAIL  published-n-times: probe-\\S+: 4 effects \\(duplicate\\)")
                .containsPattern("FAIL  redelivery: probe-\\S+: 2 effects \\(duplicate\\)")
                .containsPattern("FAIL  changed-body: probe-\\S+: 2 effects \\(duplicate\\)")
                .containsPattern("note  redelivery: probe-\\S+: committed by " + NAIVE_GROUP)
                .contains("(without an id each copy took effect)")
                .contains("FAILED: keys with duplicate or lost effects:");
        assertThat(r.err()).contains("probe: redelivery done");
    }

    /**
     * {@code --launch}: a {@link ProbeLaunchedConsumer} of topic {@code name} in group {@code name}
     * (a static member), writing into table {@code name}.
     */
    static String launch(String kind, String name) {
        return ProbeLaunchedConsumer.command("kafka", kind, name, KILL_IDEM, name, broker.getBrokersAsString(), name);
    }

    /**
     * The naive consumer commits its effect, then works {@link ProbeLaunchedConsumer#WINDOW} before
     * committing the offset: the kill lands in between, and the restarted consumer (the same static
     * member) reads the record again from the committed offset and inserts again.
     */
    @Test
    void theKillScenarioFindsTheDuplicateOfTheRecordInFlightAtTheKill() {
        LabCli.Result r = LabCli.run(args(
                        broker.getBrokersAsString(),
                        KILL_NAIVE,
                        KILL_NAIVE,
                        KILL_NAIVE,
                        "--launch",
                        launch("naive", KILL_NAIVE),
                        "--burst",
                        "10",
                        "--kill-after",
                        "1s",
                        "--start-timeout",
                        "30s")
                .toArray(String[]::new));

        // the naive consumer reads the rewound record again and inserts again
        assertThat(r.out())
                .containsPattern("FAIL  redelivery: probe-\\S+: 2 effects \\(duplicate\\)")
                .containsPattern("note  redelivery: .*rewound to partition:offset");
        ProbeLaunchedConsumer.assertKillFoundOneDuplicate(r);
    }

    /** The deduplicating consumer takes the record read again as used: every id once. */
    @Test
    void theDedupConsumerTakesEachRecordOnceThroughTheKill() {
        ProbeReport report = Probe.kafka(broker.getBrokersAsString())
                .topic(KILL_SAFE)
                .group(KILL_SAFE)
                .body(BODY)
                .effects(PG, "select count(*) from " + KILL_SAFE + " where ref = :key")
                .copies(2)
                .keys(1)
                .launch(launch("safe", KILL_SAFE), null)
                .startTimeout(Duration.ofSeconds(30))
                .burst(10)
                .killAfter(Duration.ofSeconds(1))
                .settle(Duration.ofSeconds(1), Duration.ofSeconds(20))
                .run();

        assertThat(report.scenarios()).extracting(ScenarioVerdict::name).isEqualTo(KafkaProbe.SCENARIOS);
        assertThat(report.brokenKeys()).isEmpty();
        assertThat(report.ok()).isTrue();
        ScenarioVerdict kill = report.scenario("kill");
        assertThat(kill.verdict()).as("%s", kill).isEqualTo(ScenarioVerdict.PASS);
        assertThat(kill.keys()).hasSize(10).allSatisfy(k -> assertThat(k.effects())
                .containsExactly(1L));
        // with --launch, the redelivery is the group's committed offset rewound and the service launched again
        ScenarioVerdict redelivery = report.scenario("redelivery");
        assertThat(redelivery.verdict()).as("%s", redelivery).isEqualTo(ScenarioVerdict.PASS);
        assertThat(redelivery.notes())
                .anySatisfy(
                        n -> assertThat(n).contains("committed by " + KILL_SAFE).endsWith("then rewound"))
                .anySatisfy(n -> assertThat(n).containsPattern("rewound to partition:offset \\d+:\\d+; ready again"));
        assertThat(kill.notes()).singleElement().satisfies(n -> assertThat(n)
                .containsPattern("killed 1000 ms after the first message, \\d+ of 10 published by then; ready again"
                        + " after \\d+\\.\\d s; caught up"));
    }

    @Test
    void theDedupConsumerTakesEachRecordOnce() {
        ProbeReport report = Probe.kafka(broker.getBrokersAsString())
                .topic(SAFE_TOPIC)
                .group(SAFE_GROUP)
                .body(BODY)
                .effects(PG, "select count(*) from " + SAFE_TABLE + " where ref = :key")
                .copies(8)
                .keys(3)
                .settle(Duration.ofSeconds(1), Duration.ofSeconds(20))
                .run();

        assertThat(report.brokenKeys()).isEmpty();
        assertThat(report.ok()).isTrue();
        assertThat(report.scenarios())
                .extracting(ScenarioVerdict::name)
                .isEqualTo(KafkaProbe.SCENARIOS.subList(0, 4)); // kill: with --launch
        for (String name : List.of("published-n-times", "redelivery", "changed-body")) {
            ScenarioVerdict s = report.scenario(name);
            assertThat(s.verdict()).as(name).isEqualTo(ScenarioVerdict.PASS);
            assertThat(s.keys()).as(name).hasSize(3).allSatisfy(k -> {
                assertThat(k.verdict()).isEqualTo(KeyResult.ONCE);
                assertThat(k.effects()).containsExactly(1L);
            });
        }
        assertThat(report.scenario("published-n-times").requests()).isEqualTo(24);
        assertThat(report.scenario("redelivery").notes()).hasSize(3).allSatisfy(n -> assertThat(n)
                .contains("committed by " + SAFE_GROUP));
        ScenarioVerdict noId = report.scenario("no-id");
        assertThat(noId.verdict()).isEqualTo(ScenarioVerdict.INFO);
        assertThat(noId.keys().get(0).effects()).containsExactly(0L); // skipped without an id
    }

    @Test
    void theCliExitsZeroOnTheDedupConsumerWithTheIdAlsoTheRecordKey() {
        LabCli.Result r = LabCli.run(args(
                        broker.getBrokersAsString(),
                        SAFE_TOPIC,
                        SAFE_GROUP,
                        SAFE_TABLE,
                        "--record-key",
                        "--json",
                        "--kafka-property",
                        "compression.type=none",
                        "--kafka-property",
                        "client.dns.lookup=use_all_dns_ips")
                .toArray(String[]::new));

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isEqualTo(0);
        assertThat(r.out()).contains("\"ok\" : true").contains("to the key's partition");
    }

    @Test
    void anUnknownTopicExitsTwoBeforeAnyRecord() throws Exception {
        String topic = "probe-kafka-it-no-such-topic-" + SUFFIX;
        LabCli.Result r = LabCli.run(args(broker.getBrokersAsString(), topic, NAIVE_GROUP, NAIVE_TABLE)
                .toArray(String[]::new));

        assertThat(r.status()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).contains("dupguard: --topic " + topic + ": no such topic");
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString());
        try (Admin admin = Admin.create(p)) {
            assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).doesNotContain(topic);
        }
    }

    @Test
    void aGroupWithoutAConsumerOfTheTopicExitsTwo() {
        // the naive group consumes the naive topic, not the safe one; a group that never existed has no member
        for (String group : List.of(NAIVE_GROUP, "probe-kafka-it-no-such-group-" + SUFFIX)) {
            LabCli.Result r = LabCli.run(args(broker.getBrokersAsString(), SAFE_TOPIC, group, SAFE_TABLE)
                    .toArray(String[]::new));

            assertThat(r.status()).as(r.err()).isEqualTo(2);
            assertThat(r.err()).contains("dupguard: --group " + group + ": no member of the group consumes topic");
        }
    }

    @Test
    void badOrUnreachableBootstrapServersExitTwo() {
        LabCli.Result bad = LabCli.run(
                args("no-port-here", NAIVE_TOPIC, NAIVE_GROUP, NAIVE_TABLE).toArray(String[]::new));
        assertThat(bad.status()).as(bad.err()).isEqualTo(2);
        assertThat(bad.err())
                .contains("dupguard: --bootstrap-servers: host:port[,host:port…] expected, got: no-port-here");

        LabCli.Result down = LabCli.run(
                args("127.0.0.1:1", NAIVE_TOPIC, NAIVE_GROUP, NAIVE_TABLE).toArray(String[]::new));
        assertThat(down.status()).as(down.err()).isEqualTo(2);
        assertThat(down.err()).contains("dupguard: --bootstrap-servers 127.0.0.1:1: no broker answered within 10 s");

        LabCli.Result unknownHost = LabCli.run(args("no-such-host.invalid:9092", NAIVE_TOPIC, NAIVE_GROUP, NAIVE_TABLE)
                .toArray(String[]::new));
        assertThat(unknownHost.status()).as(unknownHost.err()).isEqualTo(2);
        assertThat(unknownHost.err()).contains("dupguard: --bootstrap-servers no-such-host.invalid:9092: ");

        List<String> noBody = args(broker.getBrokersAsString(), NAIVE_TOPIC, NAIVE_GROUP, NAIVE_TABLE);
        noBody.set(noBody.indexOf(BODY), "");
        LabCli.Result empty = LabCli.run(noBody.toArray(String[]::new));
        assertThat(empty.status()).as(empty.err()).isEqualTo(2);
        assertThat(empty.err()).contains("dupguard: --body: a body template is required");

        LabCli.Result refused = LabCli.run(args(
                        broker.getBrokersAsString(),
                        NAIVE_TOPIC,
                        NAIVE_GROUP,
                        NAIVE_TABLE,
                        "--kafka-property",
                        "acks=banana")
                .toArray(String[]::new));
        assertThat(refused.status()).as(refused.err()).isEqualTo(2);
        assertThat(refused.err())
                .contains("dupguard: --kafka-property: the Kafka client refused a setting: ")
                .contains("banana");

        LabCli.Result malformed = LabCli.run(args(
                        broker.getBrokersAsString(),
                        NAIVE_TOPIC,
                        NAIVE_GROUP,
                        NAIVE_TABLE,
                        "--kafka-property",
                        "no-equals-sign")
                .toArray(String[]::new));
        assertThat(malformed.status()).as(malformed.err()).isEqualTo(2);
        assertThat(malformed.err()).contains("--kafka-property");
    }

    static void insert(Connection db, String table, ConsumerRecord<String, byte[]> r) throws SQLException {
        Matcher m = REF.matcher(new String(r.value(), StandardCharsets.UTF_8));
        try (PreparedStatement ps = db.prepareStatement("insert into " + table + " (ref, message_id) values (?, ?)")) {
            ps.setString(1, m.find() ? m.group(1) : "");
            ps.setString(2, header(r, "message-id"));
            ps.executeUpdate();
        }
    }

    static String header(ConsumerRecord<?, ?> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    interface Handler {
        void handle(Connection db, ConsumerRecord<String, byte[]> r) throws SQLException;
    }

    /**
     * One consumer of a service: its own client, thread and database connection (autocommit off);
     * each poll's records handled in order, then their offsets committed.
     */
    static final class Service implements AutoCloseable {
        final String group;
        final CountDownLatch assigned = new CountDownLatch(1);
        final KafkaConsumer<String, byte[]> consumer;
        final Thread thread;

        Service(String group, String topic, Handler handler) throws SQLException {
            this.group = group;
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString());
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
            p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            consumer = new KafkaConsumer<>(p);
            Connection db = DriverManager.getConnection(PG);
            db.setAutoCommit(false);
            thread = new Thread(
                    () -> {
                        try (db) {
                            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                                @Override
                                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

                                @Override
                                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                                    if (!partitions.isEmpty()) {
                                        assigned.countDown();
                                    }
                                }
                            });
                            while (true) {
                                var records = consumer.poll(Duration.ofMillis(100));
                                for (ConsumerRecord<String, byte[]> r : records) {
                                    handler.handle(db, r);
                                }
                                if (!records.isEmpty()) {
                                    consumer.commitSync();
                                }
                            }
                        } catch (WakeupException e) {
                            // closed
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        } finally {
                            consumer.close();
                        }
                    },
                    "probe-kafka-it-" + group);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            consumer.wakeup();
            thread.join(30_000);
        }
    }
}

package io.dupguard.examples.payments;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.Awaitility;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The ledger's crash chain for {@link PaymentsCrashIT}: the service consumes the ledger topic of an
 * in-process KRaft broker (this JVM's); for each ledger crash point a JVM armed for one entry of a
 * poll is started, the poll is published (with producer re-sends), and the JVM halts there; the next
 * JVM redelivers what the dead one did not commit. A last, unarmed JVM drains the topic. Every entry
 * must then have exactly one row; the entries dupguard refuses (no key, a key reused with another
 * value) and a malformed one must be in the dead-letter topic, and nowhere else.
 */
final class LedgerCrashChain {
    static final List<String> POINTS = List.of("ledger-before-commit", "ledger-mid-batch", "ledger-after-commit");
    private static final int PER_POLL = 20;

    private static EmbeddedKafkaKraftBroker broker;

    private LedgerCrashChain() {}

    private static synchronized String bootstrap(String topic) {
        if (broker == null) {
            EmbeddedKafkaKraftBroker b = new EmbeddedKafkaKraftBroker(1, 4).kafkaPorts(0);
            b.brokerProperty(
                    "log.dirs",
                    System.getProperty("java.io.tmpdir") + "/payments-kafka-"
                            + ProcessHandle.current().pid());
            b.brokerProperty("offsets.topic.num.partitions", "1");
            b.afterPropertiesSet();
            Runtime.getRuntime().addShutdownHook(new Thread(b::destroy, "ledger-broker-stop"));
            broker = b;
        }
        broker.addTopics(topic, topic + "-dlt");
        return broker.getBrokersAsString();
    }

    static void run(JdbcTemplate db, List<String> baseArgs, SoftAssertions softly) throws Exception {
        String run = Long.toString(System.currentTimeMillis(), 36)
                + Integer.toString(
                        java.util.concurrent.ThreadLocalRandom.current().nextInt(36 * 36), 36);
        String topic = "payments.ledger.crash-" + run;
        String servers = bootstrap(topic);
        List<String> args = new ArrayList<>(baseArgs);
        args.addAll(List.of(
                "--payments.ledger.enabled=true",
                "--payments.ledger.topic=" + topic,
                "--payments.ledger.instance=crash-" + run,
                "--spring.kafka.bootstrap-servers=" + servers,
                "--spring.kafka.consumer.fetch-max-wait=50ms"));
        Map<String, String> expected = new HashMap<>(); // entry id -> account
        List<Path> logs = new ArrayList<>();
        PaymentsProcess app = null;
        try (KafkaProducer<String, String> producer = producer(servers)) {
            for (int p = 0; p < POINTS.size(); p++) {
                String point = POINTS.get(p);
                String armed = "e-" + run + "-" + p + "-" + (PER_POLL / 2);
                app = PaymentsProcess.start(log(logs, run, p + "-" + point), point + ":" + armed, args);
                List<ProducerRecord<String, String>> poll = new ArrayList<>();
                for (int i = 0; i < PER_POLL; i++) {
                    String id = "e-" + run + "-" + p + "-" + i;
                    String account = "ledger-" + run + "-" + p + "-" + i;
                    expected.put(id, account);
                    poll.add(entry(topic, id, account + ":1.00"));
                    if (i % 5 == 0) {
                        poll.add(entry(topic, id, account + ":1.00")); // a producer's re-send
                    }
                }
                send(producer, poll);
                softly.assertThat(app.awaitExit(Duration.ofSeconds(90)))
                        .as("exit code of the JVM that should halt at %s", point)
                        .isEqualTo(137);
            }
            app = PaymentsProcess.start(log(logs, run, "last"), null, args);
            // refused or failing entries, beside good ones: dead-lettered alone
            String first = "e-" + run + "-x-0";
            expected.put(first, "ledger-" + run + "-x-0");
            send(
                    producer,
                    List.of(
                            entry(topic, first, "ledger-" + run + "-x-0:1.00"),
                            entry(topic, null, "ledger-" + run + "-keyless:1.00"),
                            entry(topic, first, "ledger-" + run + "-x-0:9.99"), // the same id, another value
                            entry(topic, "e-" + run + "-x-bad", "malformed"),
                            entry(topic, "e-" + run + "-x-1", "ledger-" + run + "-x-1:1.00")));
            expected.put("e-" + run + "-x-1", "ledger-" + run + "-x-1");
            Awaitility.await("every ledger entry applied")
                    .atMost(Duration.ofSeconds(90))
                    .until(() -> rows(db, run) >= expected.size());
            List<String> dead = deadLetters(servers, topic + "-dlt", 3);
            for (Map.Entry<String, String> e : expected.entrySet()) {
                softly.assertThat(db.queryForObject(
                                "select count(*) from example_ledger_entries where entry_id = ?",
                                Integer.class,
                                e.getKey()))
                        .as("ledger rows of %s", e.getKey())
                        .isEqualTo(1);
            }
            softly.assertThat(rows(db, run)).as("ledger rows of the run").isEqualTo(expected.size());
            softly.assertThat(dead)
                    .as("dead letters")
                    .containsExactlyInAnyOrder(
                            "ledger-" + run + "-keyless:1.00", "ledger-" + run + "-x-0:9.99", "malformed");
        } catch (Exception | AssertionError e) {
            PaymentsProcess.printTails(logs);
            throw e;
        } finally {
            if (app != null) {
                app.kill();
            }
        }
    }

    private static Path log(List<Path> logs, String run, String name) {
        Path log = Path.of("target", "crash-logs", "ledger-" + run, logs.size() + "-" + name + ".log");
        logs.add(log);
        return log;
    }

    private static int rows(JdbcTemplate db, String run) {
        return db.queryForObject(
                "select count(*) from example_ledger_entries where entry_id like ?", Integer.class, "e-" + run + "-%");
    }

    private static ProducerRecord<String, String> entry(String topic, String id, String value) {
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, id, value);
        if (id != null) {
            r.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
        }
        return r;
    }

    private static void send(KafkaProducer<String, String> producer, List<ProducerRecord<String, String>> records)
            throws Exception {
        for (ProducerRecord<String, String> r : records) {
            producer.send(r);
        }
        producer.flush();
    }

    private static KafkaProducer<String, String> producer(String servers) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p);
    }

    /** Reads the dead-letter topic until {@code n} records arrived (or 60 s passed) and a little longer. */
    private static List<String> deadLetters(String servers, String topic, int n) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "dlt-reader-" + topic);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            long settle = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, settle)) {
                c.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
                if (values.size() >= n && settle == Long.MAX_VALUE) {
                    settle = System.nanoTime() + Duration.ofSeconds(2).toNanos(); // anything more would show
                }
            }
        }
        return values;
    }
}

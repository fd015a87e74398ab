package io.dupguard.lab.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import io.dupguard.lab.LabCli;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The message consumers of {@link ProbeRabbitIT} and {@link ProbeKafkaIT}'s kill scenarios, in a
 * process of their own (the probe launches it with {@code --launch}, kills it with SIGKILL and
 * launches it again): {@code java … ProbeLaunchedConsumer rabbit|kafka naive|safe TABLE IDEM_TABLE
 * QUEUE|TOPIC [BOOTSTRAP GROUP]}. One message at a time: its effect row committed in PostgreSQL,
 * then {@link #WINDOW} of further work, then the ack (RabbitMQ) or the offset commit (Kafka), so a
 * kill lands between the two and the broker delivers the message again. {@code naive} inserts for
 * every message; {@code safe} inserts in the transaction of dupguard's transactional idempotency,
 * keyed by the message id (a message without one is skipped). A Kafka consumer is a static member
 * ({@code group.instance.id}), so its restart takes over its partitions at once.
 */
public final class ProbeLaunchedConsumer {
    /** The work after the effect's commit and before the ack: where the kill lands. */
    static final Duration WINDOW = Duration.ofMillis(400);

    private static final Pattern REF = Pattern.compile("\"ref\":\"([^\"]*)\"");

    private ProbeLaunchedConsumer() {}

    /** {@code --launch}: this class in a JVM of its own, with {@code args}. */
    static String command(String... args) {
        return "exec '" + Path.of(System.getProperty("java.home"), "bin", "java") + "' -cp '"
                + System.getProperty("java.class.path") + "' " + ProbeLaunchedConsumer.class.getName() + " "
                + String.join(" ", args);
    }

    /**
     * What a run against the naive consumer with {@code --burst 10 --kill-after 1s} prints: exit 1,
     * the message in flight at the kill taken twice, the kill's note.
     */
    static void assertKillFoundOneDuplicate(LabCli.Result r) {
        System.out.println(r.out()); // the kill's report, in the test's output
        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isEqualTo(1);
        assertThat(r.out())
                .containsPattern("FAIL  kill: probe-\\S+: 2 effects \\(duplicate\\)")
                .containsPattern("note  kill: killed 1000 ms after the first message, \\d+ of 10 published by then;"
                        + " ready again after \\d+\\.\\d s; caught up");
        assertThat(r.err()).contains("probe: kill done, 10 keys, 10 messages");
    }

    public static void main(String[] args) throws Exception {
        boolean safe = args[1].equals("safe");
        String table = args[2];
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(ProbeIT.PG);
        hc.setMaximumPoolSize(2);
        HikariDataSource pool = new HikariDataSource(hc);
        JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(JdbcIdempotencyStore.builder(pool)
                .tableName(args[3])
                .createSchemaIfMissing(true)
                .build());
        Connection db = pool.getConnection();
        db.setAutoCommit(false);
        Effect effect = (id, body) -> {
            try {
                if (!safe) {
                    insert(db, table, id, body);
                } else if (id != null) {
                    tx.execute(db, IdempotencyKey.of("probe-kill-it", id), Fingerprint.none(), Void.class, c -> {
                        insert(c, table, id, body);
                        return null;
                    });
                }
                db.commit();
            } catch (SQLException | RuntimeException e) {
                db.rollback();
                throw e;
            }
            Thread.sleep(WINDOW.toMillis()); // the service's work after its commit: the kill lands in it
        };
        if (args[0].equals("rabbit")) {
            rabbit(args[4], effect);
        } else {
            kafka(args[5], args[6], args[4], effect);
        }
    }

    interface Effect {
        void take(String id, String body) throws Exception;
    }

    static void insert(Connection db, String table, String id, String body) throws SQLException {
        Matcher m = REF.matcher(body);
        try (PreparedStatement ps = db.prepareStatement("insert into " + table + " (ref, message_id) values (?, ?)")) {
            ps.setString(1, m.find() ? m.group(1) : "");
            ps.setString(2, id);
            ps.executeUpdate();
        }
    }

    private static void rabbit(String queue, Effect effect) throws Exception {
        ConnectionFactory f = new ConnectionFactory();
        f.setUri("amqp://guest:guest@127.0.0.1:5672");
        com.rabbitmq.client.Connection conn = f.newConnection("probe-kill-it-consumer");
        Channel ch = conn.createChannel();
        ch.basicQos(1);
        ch.basicConsume(
                queue,
                false,
                (tag, d) -> {
                    try {
                        effect.take(d.getProperties().getMessageId(), new String(d.getBody(), StandardCharsets.UTF_8));
                    } catch (Exception e) {
                        ch.basicNack(d.getEnvelope().getDeliveryTag(), false, true);
                        return;
                    }
                    ch.basicAck(d.getEnvelope().getDeliveryTag(), false);
                },
                tag -> {});
        new CountDownLatch(1).await(); // consumes until killed
    }

    private static void kafka(String bootstrap, String group, String topic, Effect effect) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, group + "-1");
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p)) {
            consumer.subscribe(List.of(topic));
            while (true) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    Header h = r.headers().lastHeader("message-id");
                    effect.take(
                            h == null ? null : new String(h.value(), StandardCharsets.UTF_8),
                            new String(r.value(), StandardCharsets.UTF_8));
                    consumer.commitSync(Map.of(
                            new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1)));
                }
            }
        }
    }
}

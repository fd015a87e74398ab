package io.dupguard.lab.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import io.dupguard.lab.LabCli;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code dupguard probe rabbitmq} against a naive listener of the test's own: a consumer on
 * RabbitMQ (5672) that inserts a row into PostgreSQL for every message it gets, without looking at
 * its id.
 */
class ProbeRabbitIT {
    static final String PG = ProbeIT.PG;
    static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);
    static final String TABLE = "probe_it_credits_" + SUFFIX;
    static final String QUEUE = "probe-it-credits-" + SUFFIX;
    static final Pattern REF = Pattern.compile("\"ref\":\"([^\"]*)\"");

    static com.rabbitmq.client.Connection broker;

    @BeforeAll
    static void start() throws Exception {
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement()) {
            s.execute("create table " + TABLE + " (id bigserial primary key, ref text, message_id text)");
        }
        ConnectionFactory f = new ConnectionFactory();
        f.setUri("amqp://guest:guest@127.0.0.1:5672");
        broker = f.newConnection("probe-it-naive-listener");
        Channel ch = broker.createChannel();
        ch.queueDeclare(QUEUE, false, false, true, null);
        ch.basicQos(10);
        Connection db = DriverManager.getConnection(PG);
        ch.basicConsume(
                QUEUE,
                false,
                (tag, d) -> {
                    Matcher m = REF.matcher(new String(d.getBody(), StandardCharsets.UTF_8));
                    try (PreparedStatement ps =
                            db.prepareStatement("insert into " + TABLE + " (ref, message_id) values (?, ?)")) {
                        ps.setString(1, m.find() ? m.group(1) : "");
                        ps.setString(2, d.getProperties().getMessageId());
                        ps.executeUpdate();
                    } catch (java.sql.SQLException e) {
                        ch.basicNack(d.getEnvelope().getDeliveryTag(), false, false);
                        return;
                    }
                    ch.basicAck(d.getEnvelope().getDeliveryTag(), false);
                },
                tag -> {});
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement()) {
            s.execute("drop table if exists " + TABLE);
        }
    }

    static List<String> args(String queue) {
        return List.of(
                "probe",
                "rabbitmq",
                "--queue",
                queue,
                "--body",
                "{\"ref\":\"{{key}}\",\"amount\":\"25.00\"}",
                "--effects-jdbc-url",
                PG,
                "--effects-sql",
                "select count(*) from " + TABLE + " where ref = :key",
                "--copies",
                "4",
                "--keys",
                "1",
                "--settle",
                "500ms",
                "--lost-after",
                "5s");
    }

    @Test
    void findsTheNaiveListenersDuplicates() {
        LabCli.Result r = LabCli.run(args(QUEUE).toArray(String[]::new));

        System.out.println(r.out()); // the report docs/probe.md shows, in the test's output
        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isEqualTo(1);
        assertThat(r.out())
                .containsPattern("FAIL  published-n-times: probe-\\S+: 4 effects \\(duplicate\\)")
                .containsPattern("FAIL  changed-body: probe-\\S+: 2 effects \\(duplicate\\)")
                .containsPattern("  redelivery +PASS")
                .contains("(without an id each copy took effect)")
                .contains("FAILED: keys with duplicate or lost effects:");
    }

    @Test
    void aMissingQueueExitsTwoBeforeAnyMessage() {
        LabCli.Result r = LabCli.run(args("probe-it-no-such-queue-" + SUFFIX).toArray(String[]::new));

        assertThat(r.status()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).contains("--queue probe-it-no-such-queue-" + SUFFIX).contains("NOT_FOUND");
    }
}

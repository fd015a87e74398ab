package io.dupguard.lab.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import io.dupguard.lab.LabCli;
import io.dupguard.lab.SecondLane;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code dupguard probe rabbitmq} against a naive listener of the test's own: a consumer on
 * RabbitMQ (5672) that inserts a row into PostgreSQL for every message it gets, without looking at
 * its id.
 */
@Execution(ExecutionMode.CONCURRENT) // in the second lane: see SecondLane
@ResourceLock(SecondLane.LOCK)
class ProbeRabbitIT {
    static final String PG = ProbeIT.PG;
    static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);
    static final String TABLE = "probe_it_credits_" + SUFFIX;
    static final String QUEUE = "probe-it-credits-" + SUFFIX;
    static final Pattern REF = Pattern.compile("\"ref\":\"([^\"]*)\"");
    static final String KILL_NAIVE_TABLE = "probe_it_kill_naive_" + SUFFIX;
    static final String KILL_SAFE_TABLE = "probe_it_kill_safe_" + SUFFIX;
    static final String KILL_IDEM_TABLE = "probe_it_kill_idem_" + SUFFIX;
    static final String KILL_NAIVE_QUEUE = "probe-it-kill-naive-" + SUFFIX;
    static final String KILL_SAFE_QUEUE = "probe-it-kill-safe-" + SUFFIX;

    static com.rabbitmq.client.Connection broker;

    @BeforeAll
    static void start() throws Exception {
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement()) {
            for (String t : List.of(TABLE, KILL_NAIVE_TABLE, KILL_SAFE_TABLE)) {
                s.execute("create table " + t + " (id bigserial primary key, ref text, message_id text)");
            }
        }
        ConnectionFactory f = new ConnectionFactory();
        f.setUri("amqp://guest:guest@127.0.0.1:5672");
        broker = f.newConnection("probe-it-naive-listener");
        Channel ch = broker.createChannel();
        ch.queueDeclare(QUEUE, false, false, true, null);
        // the launched consumers' queues outlive their consumers' kills
        ch.queueDeclare(KILL_NAIVE_QUEUE, false, false, false, null);
        ch.queueDeclare(KILL_SAFE_QUEUE, false, false, false, null);
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
        try (Channel ch = broker.createChannel()) {
            ch.queueDelete(KILL_NAIVE_QUEUE);
            ch.queueDelete(KILL_SAFE_QUEUE);
        }
        broker.close();
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement()) {
            for (String t : List.of(TABLE, KILL_NAIVE_TABLE, KILL_SAFE_TABLE, KILL_IDEM_TABLE)) {
                s.execute("drop table if exists " + t);
            }
        }
    }

    static List<String> args(String queue) {
        return args(TABLE, queue, "4", "500ms", "5s");
    }

    /** A probe of {@code queue} counting effects in {@code table}, one key per scenario, and {@code more}. */
    private static List<String> args(
            String table, String queue, String copies, String settle, String lostAfter, String... more) {
        List<String> a = new ArrayList<>(List.of(
                "probe",
                "rabbitmq",
                "--queue",
                queue,
                "--body",
                "{\"ref\":\"{{key}}\",\"amount\":\"25.00\"}",
                "--effects-jdbc-url",
                PG,
                "--effects-sql",
                "select count(*) from " + table + " where ref = :key",
                "--copies",
                copies,
                "--keys",
                "1",
                "--settle",
                settle,
                "--lost-after",
                lostAfter));
        a.addAll(List.of(more));
        return a;
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

    /** {@code --launch}: a {@link ProbeLaunchedConsumer} of the queue, {@code naive} or {@code safe}. */
    static String launch(String kind, String table, String queue) {
        return ProbeLaunchedConsumer.command("rabbit", kind, table, KILL_IDEM_TABLE, queue);
    }

    static List<String> killArgs(String kind, String table, String queue, String... more) {
        List<String> a = args(
                table,
                queue,
                "2",
                "1s",
                "20s",
                "--launch",
                launch(kind, table, queue),
                "--burst",
                "10",
                "--kill-after",
                "1s",
                "--start-timeout",
                "30s");
        a.addAll(List.of(more));
        return a;
    }

    /**
     * The naive consumer commits its effect, then works {@link ProbeLaunchedConsumer#WINDOW} before
     * the ack: the kill lands in between, and the broker redelivers the message to the restarted
     * consumer, which inserts again.
     */
    @Test
    void theKillScenarioFindsTheDuplicateOfTheMessageInFlightAtTheKill() {
        LabCli.Result r =
                LabCli.run(killArgs("naive", KILL_NAIVE_TABLE, KILL_NAIVE_QUEUE).toArray(String[]::new));

        ProbeLaunchedConsumer.assertKillFoundOneDuplicate(r);
    }

    /** The deduplicating consumer takes the redelivered message's id as used: every id once. */
    @Test
    void theDedupConsumerTakesEachMessageOnceThroughTheKill(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("probe.html");
        LabCli.Result r =
                LabCli.run(killArgs("safe", KILL_SAFE_TABLE, KILL_SAFE_QUEUE, "--json", "--html", html.toString())
                        .toArray(String[]::new));

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isEqualTo(0);
        assertThat(r.out()).contains("\"ok\" : true").contains("\"name\" : \"kill\"");
        assertThat(Files.readString(html)).contains("kill").contains("SIGKILL of the launched process tree");
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("select count(*), count(distinct ref) from " + KILL_SAFE_TABLE
                        + " where message_id is not null")) {
            rs.next();
            // published-n-times 1, redelivery 1, changed-body 1, kill 10: one row per id
            assertThat(rs.getLong(1)).isEqualTo(13).isEqualTo(rs.getLong(2));
        }
    }
}

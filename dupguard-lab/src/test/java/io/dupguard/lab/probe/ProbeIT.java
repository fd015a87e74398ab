package io.dupguard.lab.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.dupguard.lab.LabCli;
import io.dupguard.lab.SecondLane;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * {@code dupguard probe http} against two services of the test's own on one JDK {@link HttpServer}
 * and PostgreSQL: {@code /naive} checks for the key and inserts if absent (select-then-insert, 1
 * s of work between the two, no dupguard, no unique key), {@code /safe} claims the key with a
 * primary key ({@code insert … on conflict do nothing}), replays the stored answer and refuses a
 * changed body with 422.
 */
@Execution(ExecutionMode.CONCURRENT) // in the second lane: see SecondLane
@ResourceLock(SecondLane.LOCK)
class ProbeIT {
    static final String PG =
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    /** The tables' suffix; {@link ProbeLaunchedService} is given its parent's. */
    static final String SUFFIX = System.getProperty(
            "dupguard.probe.it.suffix", UUID.randomUUID().toString().substring(0, 8));

    static final String NAIVE = "probe_it_naive_" + SUFFIX;
    static final String SAFE = "probe_it_safe_" + SUFFIX;
    static final String BODY = "{\"ref\":\"{{key}}\",\"n\":{{n}},\"amount\":\"25.00\"}";
    static final Pattern REF = Pattern.compile("\"ref\":\"([^\"]*)\"");

    static HttpServer server;
    /** Per key, the naive service's checks that found nothing: the second ends the first one's wait. */
    static final Map<String, CountDownLatch> CHECKED = new ConcurrentHashMap<>();

    static ExecutorService pool;
    static final AtomicInteger requests = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement()) {
            s.execute("create table " + NAIVE + " (id bigserial primary key, request_key text, ref text, body text)");
            s.execute("create table " + SAFE + " (request_key text primary key, ref text, body text, id bigserial)");
        }
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        pool = Executors.newFixedThreadPool(48);
        server.setExecutor(pool);
        server.createContext("/naive", ex -> handle(ex, ProbeIT::naive));
        server.createContext("/safe", ex -> handle(ex, ProbeIT::safe));
        server.start();
    }

    @AfterAll
    static void stop() throws SQLException {
        server.stop(0);
        pool.shutdownNow();
        try (Connection c = DriverManager.getConnection(PG);
                Statement s = c.createStatement()) {
            s.execute("drop table if exists " + NAIVE);
            s.execute("drop table if exists " + SAFE);
        }
    }

    interface Handler {
        String[] answer(String key, String ref, String body) throws Exception; // {status, body}
    }

    static void handle(HttpExchange ex, Handler h) throws IOException {
        requests.incrementAndGet();
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Matcher m = REF.matcher(body);
        String ref = m.find() ? m.group(1) : "";
        String[] answer;
        try {
            answer = h.answer(ex.getRequestHeaders().getFirst("Idempotency-Key"), ref, body);
        } catch (Exception e) {
            answer = new String[] {"500", "{\"error\":\"" + e.getClass().getSimpleName() + "\"}"};
        }
        byte[] bytes = answer[1].getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        try {
            ex.sendResponseHeaders(Integer.parseInt(answer[0]), bytes.length);
            ex.getResponseBody().write(bytes);
        } catch (IOException clientGone) {
            // the probe cut the connection: the work above is done all the same
        } finally {
            ex.close();
        }
    }

    /** Select, work, insert: what a naive service does. */
    static String[] naive(String key, String ref, String body) throws Exception {
        try (Connection c = DriverManager.getConnection(PG)) {
            if (key != null) {
                try (PreparedStatement ps = c.prepareStatement("select id from " + NAIVE + " where request_key = ?")) {
                    ps.setString(1, key);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            return new String[] {"200", "{\"id\":" + rs.getLong(1) + "}"};
                        }
                    }
                }
            }
            // The service's slow work between its check and its insert, up to 1 s: a retry of the key that checks
            // within it ends the wait, so the first insert never lands before that retry's check, however loaded
            // the machine.
            CountDownLatch checks = CHECKED.computeIfAbsent(key == null ? ref : key, k -> new CountDownLatch(2));
            checks.countDown();
            checks.await(1, TimeUnit.SECONDS);
            try (PreparedStatement ps = c.prepareStatement(
                    "insert into " + NAIVE + " (request_key, ref, body) values (?, ?, ?) returning id")) {
                ps.setString(1, key);
                ps.setString(2, ref);
                ps.setString(3, body);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new String[] {"201", "{\"id\":" + rs.getLong(1) + "}"};
                }
            }
        }
    }

    /** The key claimed by a primary key; the stored answer replayed; another body with the key refused. */
    static String[] safe(String key, String ref, String body) throws Exception {
        if (key == null) {
            return new String[] {"400", "{\"error\":\"Idempotency-Key required\"}"};
        }
        try (Connection c = DriverManager.getConnection(PG)) {
            try (PreparedStatement ps = c.prepareStatement("insert into " + SAFE
                    + " (request_key, ref, body) values (?, ?, ?) on conflict (request_key) do nothing")) {
                ps.setString(1, key);
                ps.setString(2, ref);
                ps.setString(3, body);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("select id, body from " + SAFE + " where request_key = ?")) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (!rs.getString(2).equals(body)) {
                        return new String[] {"422", "{\"error\":\"key reused with another body\"}"};
                    }
                    return new String[] {"201", "{\"id\":" + rs.getLong(1) + "}"};
                }
            }
        }
    }

    static String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    static List<String> args(String path, String table, String... more) {
        List<String> a = new ArrayList<>(List.of(
                "probe",
                "http",
                "--url",
                url(path),
                "--body",
                BODY,
                "--effects-jdbc-url",
                PG,
                "--effects-sql",
                "select count(*) from " + table + " where ref = :key",
                "--concurrency",
                "8",
                "--keys",
                "1",
                "--cut-after",
                "200ms,3s",
                "--settle",
                "500ms"));
        a.addAll(List.of(more));
        return a;
    }

    @Test
    void findsTheNaiveServicesDuplicatesAndNamesTheKeys(@TempDir Path dir) throws IOException {
        Path html = dir.resolve("probe.html");
        LabCli.Result r =
                LabCli.run(args("/naive", NAIVE, "--html", html.toString()).toArray(String[]::new));

        System.out.println(r.out()); // the report docs/probe.md shows, in the test's output
        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isEqualTo(1);
        assertThat(line(r.out(), "  sequential-retry ")).contains("PASS");
        assertThat(line(r.out(), "  concurrent-duplicates ")).contains("FAIL");
        assertThat(line(r.out(), "  cut-connection ")).contains("FAIL");
        // The 200 ms cut duplicates (its retry checks within the first attempt's work); the 3 s timeout outlasts the
        // 1 s of work, so nothing is cut.
        assertThat(r.out())
                .containsPattern("FAIL  concurrent-duplicates: probe-\\S+-\\d+: [2-8] effects \\(duplicate\\)")
                .containsPattern(
                        "FAIL  cut-connection: probe-\\S+-\\d+: 2 effects \\(duplicate\\); answers cut after 200ms")
                .containsPattern("note  cut-connection: probe-\\S+: answered 201 within the 3000 ms timeout")
                .contains("FAILED: keys with duplicate or lost effects:");
        // Keyless: every request took effect, reported but not judged.
        assertThat(line(r.out(), "  no-key ")).contains("INFO");
        assertThat(r.out()).contains("(without a key each request took effect)");
        assertThat(Files.readString(html))
                .contains("<h1>dupguard probe</h1>", "Keys with duplicate or lost effects", "concurrent-duplicates")
                .contains("<svg class=\"chart latency\"");
    }

    @Test
    void aServiceThatTakesEachKeyOncePassesEveryScenario() {
        ProbeReport report = Probe.http(url("/safe"))
                .body(BODY)
                .effects(PG, "select count(*) from " + SAFE + " where ref = :key")
                .concurrency(8)
                .keys(1)
                .cutTimeouts(Duration.ofMillis(10))
                .settle(Duration.ofMillis(200), Duration.ofSeconds(2))
                .run();

        assertThat(report.brokenKeys()).isEmpty();
        assertThat(report.ok()).isTrue();
        assertThat(report.scenarios())
                .extracting(ScenarioVerdict::name)
                .containsExactly(
                        "sequential-retry",
                        "concurrent-duplicates",
                        "cut-connection",
                        "changed-body",
                        "no-key",
                        "replay");
        for (String judged :
                List.of("sequential-retry", "concurrent-duplicates", "cut-connection", "changed-body", "replay")) {
            ScenarioVerdict v = report.scenario(judged);
            assertThat(v.verdict()).as("%s: %s", judged, v).isEqualTo(ScenarioVerdict.PASS);
            assertThat(v.keys()).allSatisfy(k -> assertThat(k.effects()).containsOnly(1L));
        }
        assertThat(report.scenario("concurrent-duplicates").answers()).containsEntry("201", 8L);
        assertThat(report.scenario("changed-body").answers()).containsEntry("422", 1L);
        assertThat(report.scenario("no-key").answers()).containsOnlyKeys("400");
        assertThat(report.scenario("no-key").verdict()).isEqualTo(ScenarioVerdict.INFO);
    }

    @Test
    void jsonForMachinesAndExitZero() throws IOException {
        LabCli.Result r =
                LabCli.run(args("/safe", SAFE, "--json", "--cut-after", "10ms").toArray(String[]::new));

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.get("ok").asBoolean()).isTrue();
        assertThat(json.get("target").asText()).isEqualTo("POST " + url("/safe"));
        JsonNode concurrent = json.get("scenarios").get(1);
        assertThat(concurrent.get("name").asText()).isEqualTo("concurrent-duplicates");
        assertThat(concurrent.get("verdict").asText()).isEqualTo("PASS");
        assertThat(concurrent.get("keys").get(0).get("effects").get(0).asLong()).isEqualTo(1);
        assertThat(concurrent.get("p99Micros").asLong()).isPositive();
    }

    @Test
    void badInputExitsTwoBeforeAnyRequest() throws IOException {
        int before = requests.get();
        String sql = "select count(*) from " + NAIVE + " where ref = :key";

        LabCli.Result noKey = LabCli.run(replace(args("/naive", NAIVE), sql, "select count(*) from " + NAIVE));
        assertThat(noKey.status()).isEqualTo(2);
        assertThat(noKey.err()).contains("--effects-sql: the query must contain :key");

        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        LabCli.Result down =
                LabCli.run(replace(args("/naive", NAIVE), url("/naive"), "http://127.0.0.1:" + closed + "/x"));
        assertThat(down.status()).isEqualTo(2);
        assertThat(down.err()).contains("--url http://127.0.0.1:" + closed + "/x: cannot connect");

        LabCli.Result noDb =
                LabCli.run(replace(args("/naive", NAIVE), PG, "jdbc:postgresql://127.0.0.1:1/test?user=postgres"));
        assertThat(noDb.status()).isEqualTo(2);
        assertThat(noDb.err())
                .contains("--effects-jdbc-url jdbc:postgresql://127.0.0.1:1/test")
                .contains("cannot count effects");

        LabCli.Result remote =
                LabCli.run(replace(args("/naive", NAIVE), url("/naive"), "http://192.0.2.10:8080/payments"));
        assertThat(remote.status()).isEqualTo(2);
        assertThat(remote.err())
                .contains("192.0.2.10 is not a loopback address")
                .contains("--allow-remote");

        LabCli.Result json = LabCli.run(replace(args("/naive", NAIVE), BODY, "{\"ref\":{{key}}}"));
        assertThat(json.status()).isEqualTo(2);
        assertThat(json.err()).contains("--body: not valid JSON once {{key}}").contains("{\"ref\":probe-check-key}");

        assertThat(requests.get()).as("requests the service received").isEqualTo(before);
    }

    /** {@code --launch}: the probe starts the service, kills it mid-request and starts it again. */
    static String launch(int port) {
        return "exec '" + Path.of(System.getProperty("java.home"), "bin", "java") + "' -cp '"
                + System.getProperty("java.class.path") + "' -Ddupguard.probe.it.suffix=" + SUFFIX
                + " -Ddupguard.pg.url='" + PG + "' " + ProbeLaunchedService.class.getName() + " " + port;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void theKillScenarioKillsTheLaunchedServiceMidRequestAndItsRetryTakesEffectOnce() throws IOException {
        int port = freePort();
        ProbeReport report = Probe.http("http://127.0.0.1:" + port + "/safe")
                .body(BODY)
                .effects(PG, "select count(*) from " + SAFE + " where ref = :key")
                .concurrency(4)
                .keys(1)
                .cutTimeouts(Duration.ofMillis(10))
                .killAfter(Duration.ofMillis(10), Duration.ofMillis(300))
                .launch(launch(port), "/health")
                .startTimeout(Duration.ofSeconds(120))
                .settle(Duration.ofMillis(200), Duration.ofSeconds(5))
                .run();

        assertThat(report.brokenKeys()).isEmpty();
        ScenarioVerdict kill = report.scenario("kill");
        assertThat(kill.verdict()).as("%s", kill).isEqualTo(ScenarioVerdict.PASS);
        assertThat(kill.keys()).hasSize(2).allSatisfy(k -> assertThat(k.effects())
                .containsExactly(1L));
        assertThat(kill.notes())
                .anySatisfy(n -> assertThat(n).containsPattern("killed 10 ms after sending; .*; ready again after"))
                .anySatisfy(n -> assertThat(n).containsPattern("killed 300 ms after sending; .*; ready again after"));
        // the probe stops the service it launched
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            try (java.net.Socket s = new java.net.Socket()) {
                org.assertj.core.api.Assertions.assertThatThrownBy(
                                () -> s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500))
                        .isInstanceOf(IOException.class);
            }
        });
    }

    @Test
    void theKillScenarioFindsTheEffectThatLostItsAnswer() throws IOException {
        int port = freePort();
        String url = "http://127.0.0.1:" + port + "/slow-answer";
        List<String> a = new ArrayList<>(args("/naive", NAIVE));
        a.set(a.indexOf(url("/naive")), url);
        a.set(a.indexOf("8"), "2"); // --concurrency
        a.set(a.indexOf("200ms,3s"), "10ms"); // --cut-after
        a.addAll(List.of(
                "--launch", launch(port), "--health", "/health", "--kill-after", "1s", "--start-timeout", "120s"));

        LabCli.Result r = LabCli.run(a.toArray(String[]::new));

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isEqualTo(1);
        assertThat(line(r.out(), "  kill ")).contains("FAIL");
        // inserted at once, killed 1 s into its 2 s of work: no answer, and the retry after the restart inserts again
        assertThat(r.out())
                .containsPattern("FAIL  kill: probe-\\S+: 2 effects \\(duplicate\\)")
                .containsPattern("note  kill: probe-\\S+: killed 1000 ms after sending; the first attempt got error");
    }

    private static String[] replace(List<String> args, String from, String to) {
        return args.stream().map(a -> a.equals(from) ? to : a).toArray(String[]::new);
    }

    private static String line(String out, String start) {
        return out.lines()
                .filter(l -> l.startsWith(start))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no line starting with '" + start + "' in:\n" + out));
    }
}

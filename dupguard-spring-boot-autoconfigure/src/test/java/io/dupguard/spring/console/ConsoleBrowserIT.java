package io.dupguard.spring.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.redis.RedisLockProvider;
import io.dupguard.retry.Alert;
import io.dupguard.retry.Enqueued;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.TaskState;
import io.dupguard.spring.autoconfigure.DupguardRedisConnection;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The console in a running application (Tomcat on a random port, PostgreSQL, its locks on Redis,
 * Spring Security with form login and CSRF) driven by headless Chromium: what an operator does, what
 * a viewer cannot, and the pages' screenshots for docs/console.md. The JDBC lock table is written by
 * a {@code JdbcLockProvider} of the test's own (another service's locks, as the console sees them).
 */
@SpringBootTest(classes = ConsoleTestApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleBrowserIT {
    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    static final String REDIS_LOCK_PREFIX = "cb:" + SUFFIX + ":lock:";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        r.add(
                "spring.datasource.url",
                () -> System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        r.add("dupguard.console.enabled", () -> "true");
        r.add("dupguard.retry.table", () -> "cb_retry_" + SUFFIX);
        r.add("dupguard.retry.poll-interval", () -> "200ms");
        r.add("dupguard.jdbc.idempotency-table", () -> "cb_idem_" + SUFFIX);
        r.add("dupguard.jdbc.lock-table", () -> "cb_locks_" + SUFFIX);
        r.add("dupguard.console.audit-table", () -> "cb_audit_" + SUFFIX);
        r.add("dupguard.purge.enabled", () -> "false");
        r.add("console-test.redis-url", () -> System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379"));
        r.add("console-test.redis-lock-prefix", () -> REDIS_LOCK_PREFIX);
    }

    @LocalServerPort
    int port;

    @Autowired
    RetryLog retries;

    @Autowired
    IdempotencyStore keys;

    @Autowired
    RedisLockProvider redisLocks;

    @Autowired
    DupguardRedisConnection redis;

    @Autowired
    DataSource dataSource;

    @Autowired
    JdbcTemplate jdbc;

    JdbcLockProvider locks;

    Browser browser;

    @BeforeAll
    void open(@TempDir Path profile) throws Exception {
        locks = JdbcLockProvider.builder(dataSource)
                .tableName("cb_locks_" + SUFFIX)
                .createSchemaIfMissing(true)
                .build();
        locks.tryAcquire("schema").ifPresent(Lease::close); // creates the table the console reads
        browser = new Browser("http://127.0.0.1:" + port, profile);
    }

    @AfterAll
    void close() {
        browser.close();
        retries.close(); // its pollers stop before their table goes
        for (String t : new String[] {"retry", "idem", "locks", "audit"}) {
            jdbc.execute("drop table if exists cb_" + t + "_" + SUFFIX);
        }
    }

    long blockedCharge(String order) {
        Enqueued e = retries.enqueue("payment.charge", "{\"order\":" + order + ",\"card\":\"4242\"}", "order-" + order);
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> ConsoleTestApp.ALERTS.stream()
                .anyMatch(a -> a.taskId() == e.id() && a.reason() == Alert.Reason.NOT_RETRYABLE));
        return e.id();
    }

    @Test
    void anOperatorUnblocksAnAlertingTaskAfterFixingItsPayloadAndTheAuditShowsIt() throws Exception {
        long id = blockedCharge("7");
        browser.login("olga", "o");
        browser.open("/dupguard/");
        assertThat(browser.text("#overview-counts")).contains("BLOCKED");
        browser.open("/dupguard/tasks");
        assertThat(browser.text("#tasks")).contains(Long.toString(id), "payment.charge", "BLOCKED", "NOT_RETRYABLE");
        browser.screenshot("tasks");

        browser.driver.findElement(By.linkText(Long.toString(id))).click();
        assertThat(browser.text("#state")).isEqualTo("BLOCKED");
        assertThat(browser.text("#error")).contains("card 4242 expired");
        WebElement form = browser.driver.findElement(By.id("unblock"));
        form.findElement(By.name("editPayload")).click();
        WebElement payload = form.findElement(By.name("payload"));
        payload.clear();
        payload.sendKeys("{\"order\":7,\"card\":\"4242\",\"renewed\":true}");
        form.findElement(By.name("reason")).sendKeys("customer renewed the card (ticket 4711)");
        browser.screenshot("task");
        form.findElement(By.tagName("button")).click();
        assertThat(browser.text("#outcome")).contains("unblock: task " + id + " is PENDING");

        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> retries.status(id)
                .map(t -> t.state() == TaskState.SUCCEEDED)
                .orElse(false));
        browser.open("/dupguard/tasks/" + id);
        assertThat(browser.text("#state")).isEqualTo("SUCCEEDED");
        browser.open("/dupguard/audit");
        assertThat(browser.text("#audit"))
                .contains(
                        "olga",
                        "unblock",
                        "task " + id,
                        "customer renewed the card (ticket 4711)",
                        "BLOCKED",
                        "\"payloadEdited\":true");
        browser.screenshot("audit");
    }

    @Test
    void anActionOnATaskThatChangedSinceThePageWasShownChangesNothing() {
        long id = blockedCharge("8");
        browser.login("olga", "o");
        browser.open("/dupguard/tasks/" + id);
        // another operator cancels it meanwhile, in a second tab
        browser.driver.switchTo().newWindow(org.openqa.selenium.WindowType.TAB);
        browser.open("/dupguard/tasks/" + id);
        WebElement cancel = browser.driver.findElement(By.id("cancel"));
        cancel.findElement(By.name("reason")).sendKeys("duplicate order");
        cancel.findElement(By.tagName("button")).click();
        assertThat(browser.text("#outcome")).contains("CANCELLED");
        browser.driver.close();
        browser.driver
                .switchTo()
                .window(browser.driver.getWindowHandles().iterator().next());

        WebElement unblock = browser.driver.findElement(By.id("unblock"));
        unblock.findElement(By.name("reason")).sendKeys("retry it");
        unblock.findElement(By.tagName("button")).click();
        assertThat(browser.text("#outcome")).contains("changed since it was shown", "nothing changed");
        assertThat(browser.text("#state")).isEqualTo("CANCELLED");
    }

    @Test
    void forceExpiringAKeyLetsTheNextRequestRunTheOperationAgain() throws Exception {
        IdempotencyKey key = IdempotencyKey.of("payments", "order-9-" + SUFFIX);
        keys.claim(key, Fingerprint.ofString("{\"amount\":12}"), "worker-a", Duration.ofMinutes(10));
        browser.login("olga", "o");
        browser.open("/dupguard/keys?scope=payments&key=" + key.key());
        assertThat(browser.text("#key")).contains("IN_PROGRESS", "worker-a", "lease end");
        WebElement form = browser.driver.findElement(By.id("expire"));
        assertThat(form.getText()).contains("runs the operation again");
        form.findElement(By.name("reason")).sendKeys("worker-a was killed mid-request");
        form.findElement(By.name("confirm")).click();
        browser.screenshot("key");
        form.findElement(By.tagName("button")).click();
        assertThat(browser.text("#outcome")).contains("expired");
        assertThat(keys.claim(key, Fingerprint.ofString("{\"amount\":12}"), "worker-b", Duration.ofMinutes(1)))
                .isInstanceOf(Claim.Claimed.class);
        browser.open("/dupguard/");
        assertThat(browser.text("#scopes")).contains("payments");
        browser.screenshot("overview");
    }

    @Test
    void anOperatorReleasesAHeldLockNamingTheConsequence() throws Exception {
        try (Lease lease = locks.acquire("ledger:7", LockOptions.ofDefaults());
                Lease onRedis = redisLocks.acquire("invoice-run", LockOptions.ofDefaults())) {
            browser.login("olga", "o");
            browser.open("/dupguard/locks");
            assertThat(browser.text("#locks")).contains("ledger:7", Long.toString(lease.fencingToken()), "invoice-run");
            browser.screenshot("locks"); // both providers
            WebElement form = browser.driver.findElement(By.id("release-jdbc-ledger:7"));
            assertThat(form.getText()).contains("a second holder may enter");
            form.findElement(By.name("reason")).sendKeys("the batch host is gone");
            form.findElement(By.name("confirm")).click();
            form.findElement(By.tagName("button")).click();
            assertThat(browser.text("#outcome")).contains("released");
            assertThat(lease.isHeld()).isFalse();
        }
    }

    @Test
    void anOperatorReleasesAHeldRedisLockAndTheAuditShowsIt() {
        Instant acquiring = Instant.now();
        try (Lease lease = redisLocks.acquire("payout:3", LockOptions.ofDefaults());
                StatefulRedisConnection<String, String> c = ((RedisClient) redis.client()).connect(redis.uri())) {
            String owner = c.sync().get(REDIS_LOCK_PREFIX + "{payout:3}");
            assertThat(owner).isNotBlank();
            browser.login("olga", "o");
            browser.open("/dupguard/locks");
            browser.text("#locks");
            WebElement row = browser.driver.findElement(
                    By.xpath("//table[@id='locks']//tr[td[1]='redis' and td[2]='payout:3']"));
            List<WebElement> cells = row.findElements(By.tagName("td"));
            assertThat(cells.get(2).getText()).isEqualTo(owner);
            assertThat(cells.get(3).getText()).isEqualTo(Long.toString(lease.fencingToken()));
            Instant leaseEnd = Instant.parse(cells.get(4).getText().replaceFirst(" .*", ""));
            assertThat(leaseEnd)
                    .as("lease end by Redis's clock, within the watchdog lease")
                    .isAfter(acquiring.minusSeconds(2))
                    .isBefore(Instant.now()
                            .plus(LockOptions.DEFAULT_WATCHDOG_LEASE)
                            .plusSeconds(2));
            WebElement form = browser.driver.findElement(By.id("release-redis-payout:3"));
            form.findElement(By.name("reason")).sendKeys("payout worker 3 hangs on a dead socket");
            form.findElement(By.name("confirm")).click();
            form.findElement(By.tagName("button")).click();
            assertThat(browser.text("#outcome")).contains("lock redis:payout:3 released");
            assertThat(c.sync().exists(REDIS_LOCK_PREFIX + "{payout:3}")).isZero();
            assertThat(lease.isHeld()).isFalse();

            browser.open("/dupguard/audit");
            WebElement entry =
                    browser.driver.findElement(By.xpath("//table[@id='audit']//tr[td[4]='lock redis:payout:3']"));
            assertThat(entry.getText())
                    .contains(
                            "olga",
                            "release-lock",
                            "payout worker 3 hangs on a dead socket",
                            owner,
                            "\"fence\":" + lease.fencingToken());
        }
    }

    @Test
    void aViewerSeesButCannotAct() {
        long id = blockedCharge("10");
        browser.login("viewer", "v");
        browser.open("/dupguard/tasks/" + id);
        assertThat(browser.text("header")).contains("viewer (read-only)");
        assertThat(browser.driver.findElements(By.cssSelector("form[method=post]")))
                .isEmpty();
        // a hand-made POST with a valid CSRF token is refused too
        Object status = browser.driver.executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "fetch('/dupguard/api/csrf').then(r => r.json()).then(c => fetch('/dupguard/api/tasks/"
                + id + "/cancel', {method: 'POST', headers: {'Content-Type':"
                + " 'application/x-www-form-urlencoded', [c.header]: c.token}, body: 'reason=x'}))"
                + ".then(r => done(r.status)).catch(e => done(String(e)));");
        assertThat(status).isEqualTo(403L);
        assertThat(retries.status(id).orElseThrow().state()).isEqualTo(TaskState.BLOCKED);
    }

    @Test
    void aCrossSitePostIsRefusedWhereSpringSecurityLeavesTheConsoleUnprotected() throws Exception {
        long id = blockedCharge("11");
        String version = Long.toString(jdbc.queryForObject(
                "select (extract(epoch from updated_at) * 1000000)::bigint from cb_retry_" + SUFFIX + " where id = ?",
                Long.class,
                id));
        browser.login("olga", "o");
        browser.open("/dupguard/tasks/" + id);
        assertThat(browser.text("#state")).isEqualTo("BLOCKED");
        // a page of another origin on the same site (another port of the host: the session cookie goes
        // along) submits a form to the JSON API, which the application left out of Spring Security's CSRF
        String cancel = "http://127.0.0.1:" + port + "/dupguard/api/tasks/" + id + "/cancel";
        byte[] attack = ("<!DOCTYPE html><form method=\"post\" action=\"" + cancel + "\">"
                        + "<input name=\"reason\" value=\"free order\"><input name=\"version\" value=\"" + version
                        + "\"><button id=\"go\">Win a prize</button></form>")
                .getBytes(StandardCharsets.UTF_8);
        HttpServer other = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        other.createContext("/", ex -> {
            try (ex) {
                ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
                ex.sendResponseHeaders(200, attack.length);
                ex.getResponseBody().write(attack);
            }
        });
        other.start();
        try {
            browser.driver.get("http://127.0.0.1:" + other.getAddress().getPort() + "/");
            browser.driver.findElement(By.id("go")).click();
            assertThat(browser.text("body")).contains("CSRF token is missing or no longer valid", "nothing changed");
        } finally {
            other.stop(0);
        }
        assertThat(retries.status(id).orElseThrow().state()).isEqualTo(TaskState.BLOCKED);

        // the operator's own page: 403 without the token, the action with it (masked, as Spring Security
        // hands it out, in the header)
        browser.open("/dupguard/");
        String post = "const done = arguments[arguments.length - 1];"
                + "fetch('/dupguard/api/csrf').then(r => r.json()).then(c => fetch('/dupguard/api/tasks/" + id
                + "/cancel', {method: 'POST', headers: Object.assign({'Content-Type':"
                + " 'application/x-www-form-urlencoded'}, arguments[0] ? {[c.header]: c.token} : {}),"
                + " body: 'reason=duplicate%20order&version=" + version + "'}))"
                + ".then(r => done(r.status)).catch(e => done(String(e)));";
        assertThat(browser.driver.executeAsyncScript(post, false)).isEqualTo(403L);
        assertThat(retries.status(id).orElseThrow().state()).isEqualTo(TaskState.BLOCKED);
        assertThat(browser.driver.executeAsyncScript(post, true)).isEqualTo(200L);
        assertThat(retries.status(id).orElseThrow().state()).isEqualTo(TaskState.CANCELLED);
        assertThat(jdbc.queryForObject(
                        "select count(*) from cb_audit_" + SUFFIX + " where target = ?", Long.class, "task " + id))
                .isOne();
    }

    @Test
    void tasksArePagedByTheDatabaseOverAHundredThousandRows() {
        jdbc.execute("insert into cb_retry_" + SUFFIX
                + " (task_type, task_key, state, runs, run_base, created_at, updated_at, payload)"
                + " select 'archive.x', md5(g::text), 'C', 1, 0, now(), now(), '\\x7b7d'::bytea"
                + " from generate_series(1, 100000) g");
        jdbc.execute("analyze cb_retry_" + SUFFIX);
        browser.login("olga", "o");
        List<Long> ids = new ArrayList<>();
        browser.open("/dupguard/tasks?state=CANCELLED&type=archive.x");
        assertThat(browser.text("#counts")).contains("CANCELLED 10000+");
        for (int page = 0; page < 5; page++) {
            for (WebElement a : browser.driver.findElements(By.cssSelector("#tasks tbody tr td:first-child a"))) {
                ids.add(Long.parseLong(a.getText()));
            }
            browser.driver.findElement(By.id("next")).click();
        }
        // what each page reads is pinned by ListPlanIT (dupguard-console), not by timing here
        assertThat(ids).hasSize(250).doesNotHaveDuplicates().isSorted();
    }
}

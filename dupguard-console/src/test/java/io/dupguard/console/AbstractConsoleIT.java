package io.dupguard.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.JdbcProcessedMessages;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.TaskState;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The console's read model and audited actions on a real database; subclasses name the server. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractConsoleIT {
    static final Actor OPERATOR = new Actor("olga", true);
    static final Actor VIEWER = new Actor("victor", false);

    ConsoleFixture f;

    abstract String url();

    @BeforeAll
    void open() {
        f = new ConsoleFixture(url());
    }

    @AfterAll
    void close() throws Exception {
        f.close();
    }

    long blocked(String type, String error) {
        return f.retries
                .recordFailure(NewTask.of(type, "{\"order\":" + System.nanoTime() + "}", null), null, error)
                .id();
    }

    @Test
    void blockedTasksArePagedByTheDatabaseWithoutGapsOrRepeats() {
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 45; i++) {
            ids.add(blocked(i % 2 == 0 ? "page.a" : "page.b", "declined"));
        }
        Set<Long> seen = new HashSet<>();
        TaskFilter filter = new TaskFilter(TaskState.BLOCKED, null, null, null, null, null, null, 10);
        int pages = 0;
        for (String cursor = null; pages == 0 || cursor != null; pages++) {
            Page<TaskRow> page = f.console.tasks(filter.at(cursor));
            for (TaskRow t : page.rows()) {
                assertThat(seen.add(t.id()))
                        .as("task %s on one page only", t.id())
                        .isTrue();
            }
            cursor = page.next();
        }
        assertThat(seen).containsAll(ids);
        TaskFilter byType = new TaskFilter(TaskState.BLOCKED, "page.b", null, null, null, null, null, 500);
        assertThat(f.console.tasks(byType).rows()).hasSize(22).allMatch(t -> t.type()
                .equals("page.b"));
    }

    @Test
    void searchFindsByErrorTextAndTaskKey() {
        long id = blocked("search.x", "gateway said: card 4242 expired");
        TaskRow t = f.console.task(id).orElseThrow();
        TaskFilter byError = new TaskFilter(null, null, null, null, "4242 expired", null, null, 50);
        assertThat(f.console.tasks(byError).rows()).extracting(TaskRow::id).containsExactly(id);
        TaskFilter byKey = new TaskFilter(null, null, t.taskKey(), null, null, null, null, 50);
        assertThat(f.console.tasks(byKey).rows()).extracting(TaskRow::id).containsExactly(id);
    }

    @Test
    void unblockIsAuditedAndAStaleVersionChangesNothing() {
        long id = blocked("unblock.x", "declined");
        TaskRow shown = f.console.task(id).orElseThrow();
        assertThatThrownBy(() -> f.console.task(OPERATOR, "unblock", id, shown.updatedAt(), null, " "))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("reason");
        assertThatThrownBy(() -> f.console.task(VIEWER, "unblock", id, shown.updatedAt(), null, "because"))
                .isInstanceOf(ForbiddenException.class);

        Outcome o =
                f.console.task(OPERATOR, "unblock", id, shown.updatedAt(), "{\"order\":1}".getBytes(), "card renewed");
        assertThat(o.changed()).as(o.message()).isTrue();
        TaskRow after = f.console.task(id).orElseThrow();
        assertThat(after.state()).isEqualTo(TaskState.PENDING);
        assertThat(after.attempts()).isZero();
        assertThat(new String(after.payload())).isEqualTo("{\"order\":1}");

        Outcome again = f.console.task(OPERATOR, "cancel", id, shown.updatedAt(), null, "stale page");
        assertThat(again.changed()).isFalse();
        assertThat(again.message()).contains("changed since it was shown");
        assertThat(f.console.task(id).orElseThrow().state()).isEqualTo(TaskState.PENDING);

        AuditEntry e = f.console.audit(0, 50).rows().stream()
                .filter(a -> a.target().equals("task " + id))
                .findFirst()
                .orElseThrow();
        assertThat(e.actor()).isEqualTo("olga");
        assertThat(e.action()).isEqualTo("unblock");
        assertThat(e.reason()).isEqualTo("card renewed");
        assertThat(e.before()).contains("\"state\":\"BLOCKED\"");
        assertThat(e.after()).contains("\"state\":\"PENDING\"", "\"payloadEdited\":true");
        assertThatThrownBy(() -> f.console.task(OPERATOR, "unblock", 99_999_999L, shown.updatedAt(), null, "x"))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("no retry task 99999999");
        assertThatThrownBy(() -> f.console.task(OPERATOR, "cancel", id, null, null, "any version"))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("give version");
        assertThat(f.console.task(id).orElseThrow().state()).isEqualTo(TaskState.PENDING);
    }

    @Test
    void twoOperatorsUnblockingOneTaskAtOnceChangeItOnce() throws Exception {
        for (int round = 0; round < 5; round++) {
            long id = blocked("race.x", "declined");
            TaskRow shown = f.console.task(id).orElseThrow();
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<Outcome>> outcomes = new ArrayList<>();
                for (String who : new String[] {"ann", "bob"}) {
                    outcomes.add(pool.submit(() -> {
                        go.await();
                        return f.console.task(new Actor(who, true), "unblock", id, shown.updatedAt(), null, "retry it");
                    }));
                }
                go.countDown();
                List<Outcome> done = new ArrayList<>();
                for (Future<Outcome> o : outcomes) {
                    done.add(o.get());
                }
                assertThat(done).filteredOn(Outcome::changed).hasSize(1);
                assertThat(done).filteredOn(o -> !o.changed()).singleElement().satisfies(o -> assertThat(o.message())
                        .contains("changed since it was shown"));
                assertThat(f.console.audit(0, 500).rows())
                        .filteredOn(a -> a.target().equals("task " + id))
                        .hasSize(1);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void bulkUnblockAppliesToTheConfirmedCountOnly() {
        for (int i = 0; i < 3; i++) {
            blocked("bulk.x", "declined");
        }
        TaskFilter sel = new TaskFilter(TaskState.BLOCKED, "bulk.x", null, null, null, null, null, 50);
        TaskActions.Selection s = f.console.select("unblock", sel);
        assertThat(s.count()).isEqualTo(3);
        Outcome wrong = f.console.bulk(OPERATOR, "unblock", sel, s.maxId(), 4, "all of them");
        assertThat(wrong.changed()).isFalse();
        assertThat(f.console.select("unblock", sel).count()).isEqualTo(3);
        Outcome ok = f.console.bulk(OPERATOR, "unblock", sel, s.maxId(), 3, "all of them");
        assertThat(ok.changed()).as(ok.message()).isTrue();
        assertThat(f.console.select("unblock", sel).count()).isZero();
    }

    @Test
    void bulkCancelAppliesEveryFieldOfTheFilter() {
        String type = "bulkf." + Long.toString(System.nanoTime(), 36);
        String dedup = "abc-" + type;
        long keyed = f.retries
                .recordFailure(NewTask.of(type, "{}", dedup), Duration.ofHours(1), "declined")
                .id();
        long timedOut = f.retries
                .recordFailure(NewTask.of(type, "{}", null), Duration.ofHours(1), "gateway 50%_timeout " + type)
                .id();
        long plain = f.retries
                .recordFailure(NewTask.of(type, "{}", null), Duration.ofHours(1), "declined")
                .id();
        long untouched = f.retries
                .recordFailure(NewTask.of(type, "{}", null), Duration.ofHours(1), "declined")
                .id();
        long blocked = blocked(type, "declined");
        String plainKey = f.console.task(plain).orElseThrow().taskKey();

        TaskFilter byTaskKey = new TaskFilter(TaskState.PENDING, null, plainKey, null, null, null, null, 50);
        TaskFilter byDedupKey = new TaskFilter(TaskState.PENDING, null, null, dedup, null, null, null, 50);
        TaskFilter byError = new TaskFilter(TaskState.PENDING, type, null, null, "50%_timeout", null, null, 50);
        for (TaskFilter sel : List.of(byTaskKey, byDedupKey, byError)) {
            TaskActions.Selection s = f.console.select("cancel", sel);
            assertThat(s.count()).as("%s", sel).isEqualTo(1);
            Outcome o = f.console.bulk(OPERATOR, "cancel", sel, s.maxId(), 1, "wrong orders");
            assertThat(o.changed()).as(o.message()).isTrue();
        }
        for (long id : new long[] {keyed, timedOut, plain}) {
            assertThat(f.console.task(id).orElseThrow().state()).isEqualTo(TaskState.CANCELLED);
        }
        assertThat(f.console.task(untouched).orElseThrow().state()).isEqualTo(TaskState.PENDING);
        assertThat(f.console.task(blocked).orElseThrow().state()).isEqualTo(TaskState.BLOCKED);
        assertThat(f.console.audit(0, 500).rows())
                .filteredOn(a -> a.action().equals("bulk-cancel"))
                .extracting(AuditEntry::target)
                .anyMatch(t -> t.contains("with task key " + plainKey))
                .anyMatch(t -> t.contains("with dedup key " + dedup))
                .anyMatch(t -> t.contains("whose last error contains '50%_timeout'"));

        TaskFilter anyState = new TaskFilter(null, null, null, dedup, null, null, null, 50);
        assertThatThrownBy(() -> f.console.select("cancel", anyState))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("give state");
        TaskFilter paged = new TaskFilter(TaskState.PENDING, type, null, null, null, null, "5", 50);
        assertThatThrownBy(() -> f.console.bulk(OPERATOR, "cancel", paged, Long.MAX_VALUE, 1, "x"))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("drop cursor");
        assertThat(f.console.task(untouched).orElseThrow().state()).isEqualTo(TaskState.PENDING);
    }

    @Test
    void forceExpireLetsTheNextClaimRunTheOperationAgain() {
        IdempotencyKey key = IdempotencyKey.of("payments", "order-" + System.nanoTime());
        f.keys.claim(key, Fingerprint.ofString("{}"), "owner-1", Duration.ofMinutes(5));
        KeyRow row = f.console.key("payments", key.key()).orElseThrow();
        assertThat(row.owner()).isEqualTo("owner-1");
        assertThat(row.live()).isTrue();
        assertThat(f.keys.claim(key, Fingerprint.ofString("{}"), "owner-2", Duration.ofMinutes(5)))
                .isInstanceOf(Claim.Existing.class);

        assertThatThrownBy(() -> f.console.forceExpire(OPERATOR, "payments", key.key(), null, "any version"))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("give version");
        Outcome o = f.console.forceExpire(OPERATOR, "payments", key.key(), row.expiresAt(), "worker died");
        assertThat(o.changed()).as(o.message()).isTrue();
        assertThat(f.console.stuck("payments", null, 50).rows())
                .extracting(KeyRow::key)
                .contains(key.key());
        assertThat(f.keys.claim(key, Fingerprint.ofString("{}"), "owner-2", Duration.ofMinutes(5)))
                .isInstanceOf(Claim.Claimed.class);
        assertThat(f.console
                        .forceExpire(OPERATOR, "payments", key.key(), row.expiresAt(), "again")
                        .changed())
                .isFalse();
        assertThat(f.console.scopes()).contains("payments");
    }

    /**
     * A listener's message in the processed-messages table: found by the key lookup (the table
     * created after the console was built), force-expired, and its next delivery runs the handler
     * again; a stale version changes nothing.
     */
    @Test
    void aProcessedMessageIsFoundAndForceExpiredSoItsNextDeliveryRunsAgain() throws Exception {
        String id = "msg-" + System.nanoTime();
        assertThat(f.console.key("orders", id))
                .as("no processed table yet: a miss")
                .isEmpty();
        JdbcProcessedMessages processed = JdbcProcessedMessages.builder(f.ds)
                .tableName(f.prefix + "processed")
                .createSchemaIfMissing(true)
                .build();
        JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(processed);
        AtomicInteger runs = new AtomicInteger();
        assertThat(deliver(tx, id, runs)).isEqualTo(io.dupguard.idempotency.Outcome.first(null));

        KeyRow row = f.console.key("orders", id).orElseThrow();
        assertThat(row.processed()).isTrue();
        assertThat(row.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(row.owner()).isNull();
        assertThat(row.fingerprint()).hasSize(16);
        assertThat(row.live()).isTrue();
        assertThat(JsonApi.key(row)).containsEntry("processed", true);
        assertThat(deliver(tx, id, runs)).isEqualTo(io.dupguard.idempotency.Outcome.replayed(null));

        Outcome o = f.console.forceExpire(OPERATOR, "orders", id, row.expiresAt(), "effect reverted by hand");
        assertThat(o.changed()).as(o.message()).isTrue();
        assertThat(o.message()).contains("next delivery of the message runs its handler again");
        assertThat(f.console.audit(Long.MAX_VALUE, 1).rows().get(0).before()).contains(f.prefix + "processed");
        assertThat(deliver(tx, id, runs)).isEqualTo(io.dupguard.idempotency.Outcome.first(null));
        assertThat(runs).hasValue(2);
        assertThat(f.console
                        .forceExpire(OPERATOR, "orders", id, row.expiresAt(), "stale")
                        .changed())
                .isFalse();
        assertThat(deliver(tx, id, runs)).isEqualTo(io.dupguard.idempotency.Outcome.replayed(null));

        // Without fingerprints the row has none, shown empty.
        JdbcTransactionalIdempotency bare = JdbcTransactionalIdempotency.of(JdbcProcessedMessages.builder(f.ds)
                .tableName(f.prefix + "processed")
                .fingerprints(false)
                .build());
        String other = id + "-bare";
        assertThat(deliver(bare, other, runs)).isEqualTo(io.dupguard.idempotency.Outcome.first(null));
        assertThat(f.console.key("orders", other).orElseThrow().fingerprint()).isEmpty();
    }

    private io.dupguard.idempotency.Outcome<Void> deliver(
            JdbcTransactionalIdempotency tx, String id, AtomicInteger runs) throws Exception {
        try (Connection c = f.ds.getConnection()) {
            c.setAutoCommit(false);
            io.dupguard.idempotency.Outcome<Void> out =
                    tx.execute(c, IdempotencyKey.of("orders", id), Fingerprint.ofString("{}"), Void.class, conn -> {
                        runs.incrementAndGet();
                        return null;
                    });
            c.commit();
            return out;
        }
    }

    @Test
    void releasingAJdbcLockLetsASecondHolderInWithAHigherFence() {
        Lease first = f.locks.acquire("account-42", LockOptions.ofDefaults());
        LockRow row = f.console.locks(50).stream()
                .filter(l -> l.name().equals("account-42"))
                .findFirst()
                .orElseThrow();
        assertThat(row.fence()).isEqualTo(first.fencingToken());
        Outcome o = f.console.releaseLock(OPERATOR, "jdbc", "account-42", row.owner(), "holder hung");
        assertThat(o.changed()).as(o.message()).isTrue();
        // Another provider: this one would count a second acquire in this thread as reentrant.
        JdbcLockProvider other =
                JdbcLockProvider.builder(f.ds).tableName(f.prefix + "locks").build();
        Lease second = other.tryAcquire("account-42").orElseThrow();
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(f.console
                        .releaseLock(OPERATOR, "jdbc", "account-42", row.owner(), "again")
                        .changed())
                .isFalse();
        second.close();
        first.close(); // its release finds the lock no longer its own: nothing to do
    }

    @Test
    void theHandlerRefusesActionsWithoutCsrfOrOperatorAndAnswersJson() {
        long id = blocked("http.x", "declined");
        ConsoleHandler h = new ConsoleHandler(f.console);
        var csrf = new ConsoleRequest.Csrf("_csrf", "t", true);
        var forged = new ConsoleRequest.Csrf("_csrf", "t", false);
        Map<String, String> form = Map.of(
                "reason",
                "try",
                "version",
                Params.version(f.console.task(id).orElseThrow().updatedAt()));
        assertThat(h.handle(new ConsoleRequest("POST", "/api/tasks/" + id + "/unblock", form, OPERATOR, forged, "/d"))
                        .status())
                .isEqualTo(403);
        assertThat(h.handle(new ConsoleRequest("POST", "/api/tasks/" + id + "/unblock", form, VIEWER, csrf, "/d"))
                        .status())
                .isEqualTo(403);
        assertThat(f.console.task(id).orElseThrow().state()).isEqualTo(TaskState.BLOCKED);
        ConsoleResponse ok =
                h.handle(new ConsoleRequest("POST", "/api/tasks/" + id + "/unblock", form, OPERATOR, csrf, "/d"));
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);
        assertThat(ok.body()).contains("\"changed\":true");
        ConsoleResponse page = h.handle(new ConsoleRequest("GET", "/tasks/" + id, Map.of(), VIEWER, csrf, "/d"));
        assertThat(page.body()).contains("PENDING").doesNotContain("<form method=\"post\"");
        assertThat(h.handle(new ConsoleRequest("GET", "/api/tasks/abc", Map.of(), VIEWER, csrf, "/d"))
                        .status())
                .isEqualTo(400);
        assertThat(h.handle(new ConsoleRequest("GET", "/api/overview", Map.of(), VIEWER, csrf, "/d"))
                        .body())
                .contains("\"counts\"");
    }

    @Test
    void badInputIsA400AndAStaleVersionA409ChangingNothing() {
        long id = blocked("input.x", "declined");
        String version = Params.version(f.console.task(id).orElseThrow().updatedAt());
        ConsoleHandler h = new ConsoleHandler(f.console);
        var csrf = new ConsoleRequest.Csrf("_csrf", "t", true);
        for (String limit : new String[] {"0", "501", "4294967297", "-1"}) {
            for (String path : new String[] {"/api/tasks", "/tasks"}) {
                ConsoleResponse r =
                        h.handle(new ConsoleRequest("GET", path, Map.of("limit", limit), VIEWER, csrf, "/d"));
                assertThat(r.status()).as(path + "?limit=" + limit).isEqualTo(400);
                assertThat(r.body()).contains("limit must be 1 to 500");
            }
        }
        assertThat(h.handle(new ConsoleRequest("GET", "/api/tasks", Map.of("limit", "500"), VIEWER, csrf, "/d"))
                        .status())
                .isEqualTo(200);

        // a single-item action needs the version the operator saw: 400 without it, 409 when it changed
        for (String path : new String[] {"/api/tasks/" + id + "/cancel", "/tasks/" + id + "/cancel"}) {
            ConsoleResponse missing =
                    h.handle(new ConsoleRequest("POST", path, Map.of("reason", "r"), OPERATOR, csrf, "/d"));
            assertThat(missing.status()).as(path).isEqualTo(400);
            assertThat(missing.body()).contains("give version");
            ConsoleResponse stale = h.handle(new ConsoleRequest(
                    "POST", path, Map.of("reason", "r", "version", "1700000000000000"), OPERATOR, csrf, "/d"));
            assertThat(stale.status()).as(path).isEqualTo(409);
            assertThat(stale.body()).contains("changed since it was shown");
        }
        ConsoleResponse expire = h.handle(new ConsoleRequest(
                "POST",
                "/keys/expire",
                Map.of("scope", "payments", "key", "k-" + id, "confirm", "1", "reason", "r"),
                OPERATOR,
                csrf,
                "/d"));
        assertThat(expire.status()).isEqualTo(400);
        assertThat(expire.body()).contains("give version");
        assertThat(f.console.task(id).orElseThrow().state()).isEqualTo(TaskState.BLOCKED);

        // a lock release without the owner it saw, on the page and in the API
        try (Lease lease = f.locks.acquire("input-" + id, LockOptions.ofDefaults())) {
            for (String path : new String[] {"/locks/release", "/api/locks/release"}) {
                ConsoleResponse r = h.handle(new ConsoleRequest(
                        "POST",
                        path,
                        Map.of("provider", "jdbc", "name", "input-" + id, "confirm", "1", "reason", "r"),
                        OPERATOR,
                        csrf,
                        "/d"));
                assertThat(r.status()).as(path).isEqualTo(400);
                assertThat(r.body()).contains("give owner");
            }
            assertThat(lease.isHeld()).isTrue();
        }

        // a bulk action takes the whole selection: a page's cursor or limit is refused
        for (String paging : new String[] {"limit", "cursor"}) {
            ConsoleResponse r = h.handle(new ConsoleRequest(
                    "POST",
                    "/api/tasks/bulk/cancel",
                    Map.of("state", "BLOCKED", "type", "input.x", paging, "10", "reason", "r"),
                    OPERATOR,
                    csrf,
                    "/d"));
            assertThat(r.status()).as(paging).isEqualTo(400);
            assertThat(r.body()).contains("drop " + paging);
        }
        assertThat(f.console.task(id).orElseThrow().state()).isEqualTo(TaskState.BLOCKED);
    }
}

package io.dupguard.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dupguard.LeaseLostException;
import io.dupguard.retry.Alert;
import io.dupguard.retry.ClaimedTask;
import io.dupguard.retry.Enqueued;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.NonRetryableException;
import io.dupguard.retry.RetryConfig;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.RetrySchedule;
import io.dupguard.retry.RetryStats;
import io.dupguard.retry.RetryStore;
import io.dupguard.retry.RetryTask;
import io.dupguard.retry.RunResult;
import io.dupguard.retry.TaskOptions;
import io.dupguard.retry.TaskPage;
import io.dupguard.retry.TaskState;
import io.dupguard.retry.UnknownTaskException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Behaviour every {@link RetryStore} must show against its real server (guarantees R1–R6). "Machines" are
 * store instances on separate connection pools sharing one table. Task types carry a random prefix
 * per test, so tests never see each other's tasks; waits use Awaitility.
 */
public abstract class AbstractRetryStoreContractTest {
    private static final Duration LONG = Duration.ofMinutes(5);
    private static final RetrySchedule FAST = RetrySchedule.steppedBuilder()
            .steps(Duration.ofMillis(10), Duration.ofMillis(20))
            .maxAttempts(4)
            .build();

    private String prefix;

    /**
     * Machine 0; further machines come from {@link #machine(int)}.
     *
     * @return the store under test, the same instance on every call within a test
     */
    protected abstract RetryStore store();

    /**
     * Store {@code i} (1 or 2) on its own connection pool, standing in for another machine.
     *
     * @param i 1 or 2
     * @return a store on the same table as {@link #store()}, the same instance per {@code i}
     */
    protected abstract RetryStore machine(int i);

    /**
     * A store no other test writes to, for {@link RetryStore#unblockAll} with a null type, which
     * unblocks every BLOCKED task of the store. The default is {@link #store()}: override it when
     * {@link #store()} is shared with other tests or other runs (a table on a real server).
     *
     * @return a store whose only tasks are the calling test's
     */
    protected RetryStore storeOfItsOwn() {
        return store();
    }

    /**
     * Tasks in the many-workers test.
     *
     * @return 600 by default; a slow server may lower it
     */
    protected int manyTasks() {
        return 600;
    }

    @BeforeEach
    void setUpRetryPrefix() {
        prefix = "rt" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL) + "-";
    }

    /**
     * A task type of this test: {@code t} behind a random prefix per test, so that tests and earlier
     * runs on a shared table never see each other's tasks.
     *
     * @param t the type within the test
     * @return the task type to use
     */
    protected String type(String t) {
        return prefix + t;
    }

    private List<ClaimedTask> claimOwn(RetryStore s, String owner, int max, Duration lease) {
        // Other tests' tasks never share a type prefix, but a store may hold leftovers of earlier
        // runs: keep claiming until this test's tasks come up, handing the others back.
        List<ClaimedTask> mine = new ArrayList<>();
        List<ClaimedTask> batch;
        do {
            batch = s.claim(owner, max, lease);
            for (ClaimedTask t : batch) {
                if (t.type().startsWith(prefix)) {
                    mine.add(t);
                } else {
                    s.retryLater(t, Duration.ofMinutes(10), "left over by an earlier test");
                }
            }
        } while (!batch.isEmpty() && mine.size() < max);
        return mine;
    }

    /** A due task goes to one worker only. */
    @Test
    public void aDueTaskGoesToOneWorkerOnly() {
        Enqueued e = store().enqueue(NewTask.of(type("pay"), "order-1", null));
        assertThat(e.created()).isTrue();
        List<ClaimedTask> first = claimOwn(store(), "w0", 10, LONG);
        assertThat(first).extracting(ClaimedTask::id).containsExactly(e.id());
        assertThat(first.get(0).attempt()).isEqualTo(1);
        assertThat(new String(first.get(0).payload(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("order-1");
        assertThat(claimOwn(machine(1), "w1", 10, LONG)).isEmpty();
        assertThat(store().find(e.id())).get().extracting(RetryTask::state).isEqualTo(TaskState.RUNNING);
        assertThat(store().list(TaskState.RUNNING, type("pay"), TaskPage.first(10)))
                .extracting(RetryTask::id)
                .containsExactly(e.id());
        assertThat(store().list(TaskState.PENDING, type("pay"), TaskPage.first(10)))
                .isEmpty();
        machine(2).succeed(first.get(0));
        RetryTask done = store().find(e.id()).orElseThrow();
        assertThat(done.state()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(done.attempts()).isEqualTo(1);
        assertThat(done.dueAt()).isNull();
    }

    /** A second enqueue with the same dedup key returns the first task. */
    @Test
    public void aSecondEnqueueWithTheSameDedupKeyReturnsTheFirstTask() {
        Enqueued first = store().enqueue(NewTask.of(type("mail"), "a", "order-7"));
        Enqueued second = machine(1).enqueue(NewTask.of(type("mail"), "b", "order-7"));
        Enqueued otherType = store().enqueue(NewTask.of(type("sms"), "c", "order-7"));
        assertThat(second).isEqualTo(new Enqueued(first.id(), false));
        assertThat(otherType.created()).isTrue();
        assertThat(store().find(first.id()))
                .get()
                .extracting(RetryTask::payloadText)
                .isEqualTo("a");
        Enqueued failed = store().recordFailure(NewTask.of(type("mail"), "d", "order-7"), Duration.ZERO, "boom");
        assertThat(failed).isEqualTo(new Enqueued(first.id(), false));
    }

    /** An expired lease is reclaimed and the stale worker's writes are refused. */
    @Test
    public void anExpiredLeaseIsReclaimedAndTheStaleWorkersWritesAreRefused() {
        Enqueued e = store().enqueue(NewTask.of(type("charge"), "x", null));
        ClaimedTask stale =
                claimOwn(store(), "crashed", 1, Duration.ofMillis(300)).get(0);
        List<ClaimedTask> again = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            again.addAll(claimOwn(machine(1), "rescuer", 1, LONG));
            return !again.isEmpty();
        });
        ClaimedTask fresh = again.get(0);
        assertThat(fresh.id()).isEqualTo(e.id());
        assertThat(fresh.attempt()).isEqualTo(2);
        assertThatThrownBy(() -> store().succeed(stale)).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store().retryLater(stale, Duration.ZERO, "late"))
                .isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> store().block(stale, "late")).isInstanceOf(LeaseLostException.class);
        assertThat(store().extendLeases("crashed", List.of(stale), LONG)).isZero();
        machine(1).succeed(fresh);
        assertThatThrownBy(() -> machine(1).succeed(fresh)).isInstanceOf(LeaseLostException.class);
        RetryTask done = store().find(e.id()).orElseThrow();
        assertThat(done.state()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(done.attempts()).isEqualTo(2);
    }

    /** A batch of completions refuses only the stale claims. */
    @Test
    public void aBatchOfCompletionsRefusesOnlyTheStaleClaims() {
        for (int i = 0; i < 3; i++) {
            store().enqueue(NewTask.of(type("batch"), "b" + i, null));
        }
        List<ClaimedTask> claimed = claimOwn(store(), "w0", 3, LONG);
        assertThat(claimed).hasSize(3);
        ClaimedTask current = claimed.get(1);
        // The same owner's earlier run of that task: its run count no longer matches.
        ClaimedTask stale = new ClaimedTask(
                current.id(), current.type(), current.taskKey(), current.payload(), current.runs() - 1, 0, "w0");
        List<ClaimedTask> batch = List.of(claimed.get(0), stale, claimed.get(2));
        assertThat(machine(1).succeedAll(batch)).containsExactly(stale);
        assertThat(store().find(claimed.get(0).id()))
                .get()
                .extracting(RetryTask::state)
                .isEqualTo(TaskState.SUCCEEDED);
        assertThat(store().find(claimed.get(1).id()))
                .get()
                .extracting(RetryTask::state)
                .isEqualTo(TaskState.RUNNING);
        assertThat(store().find(claimed.get(2).id()))
                .get()
                .extracting(RetryTask::state)
                .isEqualTo(TaskState.SUCCEEDED);
        assertThat(machine(2).succeedAll(List.of(claimed.get(1)))).isEmpty();
    }

    /** A renewed lease is not reclaimed. */
    @Test
    public void aRenewedLeaseIsNotReclaimed() {
        store().enqueue(NewTask.of(type("slow"), "x", null));
        ClaimedTask t = claimOwn(store(), "w0", 1, Duration.ofSeconds(2)).get(0);
        assertThat(store().extendLeases("w0", List.of(t), LONG)).isEqualTo(1);
        assertThat(claimOwn(machine(1), "w1", 5, LONG)).isEmpty();
        store().succeed(t);
    }

    /** A retried task waits for its delay and blocked tasks wait for a person. */
    @Test
    public void aRetriedTaskWaitsForItsDelayAndBlockedTasksWaitForAPerson() {
        Enqueued e = store().enqueue(NewTask.of(type("notify"), "x", null));
        ClaimedTask first = claimOwn(store(), "w0", 1, LONG).get(0);
        store().retryLater(first, Duration.ofHours(1), "java.io.IOException: timeout");
        RetryTask waiting = store().find(e.id()).orElseThrow();
        assertThat(waiting.state()).isEqualTo(TaskState.PENDING);
        assertThat(waiting.lastError()).isEqualTo("java.io.IOException: timeout");
        assertThat(waiting.dueAt()).isAfter(waiting.updatedAt().plus(Duration.ofMinutes(59)));
        assertThat(claimOwn(machine(1), "w1", 5, LONG)).isEmpty();

        Enqueued b = store().enqueue(NewTask.of(type("notify"), "y", null));
        ClaimedTask toBlock = claimOwn(store(), "w0", 1, LONG).get(0);
        store().block(toBlock, "rejected card");
        assertThat(store().find(b.id())).get().extracting(RetryTask::state).isEqualTo(TaskState.BLOCKED);
        assertThat(claimOwn(machine(1), "w1", 5, LONG)).isEmpty();
        assertThat(store().list(TaskState.BLOCKED, type("notify"), TaskPage.first(10)))
                .extracting(RetryTask::id)
                .containsExactly(b.id());

        assertThat(machine(2).unblock(b.id())).isTrue();
        assertThat(machine(2).unblock(b.id())).isFalse();
        ClaimedTask retried = claimOwn(machine(1), "w1", 5, LONG).get(0);
        assertThat(retried.id()).isEqualTo(b.id());
        assertThat(retried.attempt())
                .as("unblocking restores the attempt budget")
                .isEqualTo(1);
        assertThat(store().cancel(b.id()))
                .as("a running task cannot be cancelled")
                .isFalse();
        machine(1).succeed(retried);
        assertThat(store().cancel(b.id())).isFalse();
        assertThat(store().cancel(e.id())).isTrue();
        assertThat(store().find(e.id())).get().extracting(RetryTask::state).isEqualTo(TaskState.CANCELLED);
        assertThatThrownBy(() -> store().cancel(Long.MAX_VALUE - 7)).isInstanceOf(UnknownTaskException.class);
        assertThatThrownBy(() -> store().unblock(Long.MAX_VALUE - 7)).isInstanceOf(UnknownTaskException.class);
        assertThat(store().find(Long.MAX_VALUE - 7)).isEmpty();
    }

    /** A failed inline run is recorded after its first attempt. */
    @Test
    public void aFailedInlineRunIsRecordedAfterItsFirstAttempt() {
        Enqueued later = store().recordFailure(NewTask.of(type("pay"), "x", null), Duration.ZERO, "timeout");
        Enqueued blocked = store().recordFailure(NewTask.of(type("pay"), "y", null), null, "invalid account");
        assertThat(store().find(blocked.id())).get().satisfies(t -> {
            assertThat(t.state()).isEqualTo(TaskState.BLOCKED);
            assertThat(t.attempts()).isEqualTo(1);
            assertThat(t.lastError()).isEqualTo("invalid account");
        });
        ClaimedTask retry = claimOwn(store(), "w0", 5, LONG).get(0);
        assertThat(retry.id()).isEqualTo(later.id());
        assertThat(retry.attempt()).isEqualTo(2);
        store().succeed(retry);
    }

    /** Blocked tasks are paged, counted and unblocked by type. */
    @Test
    public void blockedTasksArePagedCountedAndUnblockedByType() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(store().recordFailure(NewTask.of(type("a"), "p" + i, null), null, "no")
                    .id());
        }
        store().recordFailure(NewTask.of(type("b"), "q", null), null, "no");
        store().enqueue(NewTask.of(type("b"), "r", null));
        List<RetryTask> page1 = store().list(TaskState.BLOCKED, type("a"), TaskPage.first(3));
        assertThat(page1).extracting(RetryTask::id).containsExactlyElementsOf(ids.subList(0, 3));
        List<RetryTask> page2 = store().list(
                        TaskState.BLOCKED, type("a"), new TaskPage(page1.get(2).id(), 3));
        assertThat(page2).extracting(RetryTask::id).containsExactlyElementsOf(ids.subList(3, 5));

        RetryStats stats = machine(1).stats();
        assertThat(stats.count(type("a"), TaskState.BLOCKED)).isEqualTo(5);
        assertThat(stats.count(type("b"), TaskState.BLOCKED)).isEqualTo(1);
        assertThat(stats.count(type("b"), TaskState.PENDING)).isEqualTo(1);
        assertThat(stats.rows())
                .filteredOn(r -> r.type().equals(type("b")) && r.state() == TaskState.PENDING)
                .allSatisfy(r -> assertThat(r.oldestDue()).isNotNull());

        assertThat(machine(2).unblockAll(type("a"))).isEqualTo(5);
        assertThat(store().stats().count(type("a"), TaskState.PENDING)).isEqualTo(5);
        assertThat(store().stats().count(type("b"), TaskState.BLOCKED)).isEqualTo(1);
    }

    /** {@code unblockAll(null)} unblocks the BLOCKED tasks of every type. */
    @Test
    public void unblockAllWithoutATypeUnblocksEveryType() {
        RetryStore own = storeOfItsOwn();
        long a = own.recordFailure(NewTask.of(type("a"), "p", null), null, "no").id();
        long b = own.recordFailure(NewTask.of(type("b"), "q", null), null, "no").id();
        long pending = own.enqueue(NewTask.of(type("c"), "r", null)).id();

        assertThat(own.unblockAll(null)).isEqualTo(2);
        assertThat(List.of(a, b, pending)).allSatisfy(id -> assertThat(own.find(id))
                .get()
                .extracting(RetryTask::state)
                .isEqualTo(TaskState.PENDING));
        assertThat(own.unblockAll(null)).isZero();

        long c = own.recordFailure(NewTask.of(type("c"), "s", null), null, "no").id();
        try (RetryLog log = RetryLog.builder(own).build()) {
            assertThat(log.unblockAll(null)).as("RetryLog passes null on").isEqualTo(1);
        }
        assertThat(own.find(c)).get().extracting(RetryTask::state).isEqualTo(TaskState.PENDING);
    }

    /** Succeeded tasks are purged in bounded batches. */
    @Test
    public void succeededTasksArePurgedInBoundedBatches() {
        // The purge is table-wide: succeeded tasks an interrupted earlier run left in the shared
        // table (older than an hour) go first, so the counts below are this test's own.
        while (store().purgeSucceeded(Duration.ofHours(1), 1000) > 0) {
            // drain
        }
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(store().enqueue(NewTask.of(type("purge"), "p" + i, "d" + i)).id());
        }
        for (ClaimedTask t : claimOwn(store(), "w0", 5, LONG)) {
            store().succeed(t);
        }
        long blocked = store().recordFailure(NewTask.of(type("purge"), "b", null), null, "no")
                .id();
        assertThat(store().purgeSucceeded(Duration.ofHours(1), 100))
                .as("too young")
                .isZero();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(store().purgeSucceeded(Duration.ofMillis(1), 2))
                        .as("one bounded batch")
                        .isEqualTo(2));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            store().purgeSucceeded(Duration.ofMillis(1), 1000);
            return ids.stream().allMatch(id -> store().find(id).isEmpty());
        });
        assertThat(store().find(blocked)).isPresent();
        assertThat(store().enqueue(NewTask.of(type("purge"), "again", "d0")).created())
                .as("a purged task's dedup key is free again")
                .isTrue();
    }

    /**
     * The log retries on schedule, blocks what cannot succeed and alerts on money.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void theLogRetriesOnScheduleBlocksWhatCannotSucceedAndAlertsOnMoney() throws Exception {
        Queue<Alert> alerts = new ConcurrentLinkedQueue<>();
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        RetryLog log = RetryLog.builder(store())
                .handler(type("flaky"), t -> {
                    if (calls.computeIfAbsent(t.taskKey(), k -> new AtomicInteger())
                                    .incrementAndGet()
                            < 3) {
                        throw new java.io.IOException("platform timeout");
                    }
                })
                .handler(
                        type("money"),
                        t -> {
                            if (calls.computeIfAbsent(t.taskKey(), k -> new AtomicInteger())
                                            .incrementAndGet()
                                    < 2) {
                                throw new java.io.IOException("bank timeout");
                            }
                        },
                        TaskOptions.custom().schedule(FAST).moneyRelated(true).build())
                .handler(
                        type("broken"),
                        t -> {
                            throw new NonRetryableException("account closed");
                        },
                        TaskOptions.custom().schedule(FAST).build())
                .handler(
                        type("hopeless"),
                        t -> {
                            throw new IllegalStateException("down");
                        },
                        TaskOptions.custom().schedule(FAST).build())
                .config(RetryConfig.custom()
                        .pollInterval(Duration.ofMillis(50))
                        .alertSink(a -> {
                            if (a.type().startsWith(prefix)) { // leftovers of other tests get blocked too
                                alerts.add(a);
                            }
                        })
                        .build())
                .build();
        RetryLog flakyOnly = RetryLog.builder(store())
                .handler(
                        type("flaky"),
                        t -> {},
                        TaskOptions.custom().schedule(FAST).build())
                .build();
        try (log) {
            RetryLog withFastFlaky = log;
            RunResult ok = flakyOnly.run(type("flaky"), "fine");
            assertThat(ok.outcome()).isEqualTo(RunResult.Outcome.SUCCEEDED);
            assertThat(ok.taskId()).isZero();

            RunResult flaky = withFastFlaky.run(type("flaky"), "x");
            assertThat(flaky.outcome()).isEqualTo(RunResult.Outcome.RETRY_SCHEDULED);
            assertThat(flaky.failure()).hasMessage("platform timeout");
            RunResult money = withFastFlaky.run(type("money"), "y");
            RunResult broken = withFastFlaky.run(type("broken"), "z");
            assertThat(broken.outcome()).isEqualTo(RunResult.Outcome.BLOCKED);
            long hopeless = withFastFlaky.enqueue(type("hopeless"), "h", null).id();
            long unknown =
                    store().enqueue(NewTask.of(type("nobody"), "n", null)).id();
            log.start();

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(state(money.taskId())).isEqualTo(TaskState.SUCCEEDED);
                assertThat(state(hopeless)).isEqualTo(TaskState.BLOCKED);
                assertThat(state(unknown)).isEqualTo(TaskState.BLOCKED);
            });
            // The default schedule's first pause is 10 s: unblock-free check of the first flaky run.
            assertThat(store().find(flaky.taskId()).orElseThrow().attempts()).isEqualTo(1);
            assertThat(state(broken.taskId())).isEqualTo(TaskState.BLOCKED);
            assertThat(store().find(hopeless).orElseThrow().attempts()).isEqualTo(4);
            assertThat(store().find(unknown).orElseThrow().lastError()).contains("no handler for task type");

            assertThat(alerts)
                    .extracting(Alert::reason, Alert::taskId)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple(Alert.Reason.MONEY_FIRST_FAILURE, money.taskId()),
                            org.assertj.core.groups.Tuple.tuple(Alert.Reason.NOT_RETRYABLE, broken.taskId()),
                            org.assertj.core.groups.Tuple.tuple(Alert.Reason.ATTEMPTS_EXHAUSTED, hopeless),
                            org.assertj.core.groups.Tuple.tuple(Alert.Reason.UNKNOWN_TYPE, unknown));
            assertThat(log.blocked(type("hopeless"), TaskPage.first(10)))
                    .extracting(RetryTask::id)
                    .containsExactly(hopeless);
            store().cancel(flaky.taskId());
        }
    }

    private TaskState state(long id) {
        return store().find(id).orElseThrow().state();
    }

    /**
     * Three machines drain every task to an end exactly once.
     *
     * @throws Exception what a worker thread or a wait threw: the test fails
     */
    @Test
    public void threeMachinesDrainEveryTaskToAnEndExactlyOnce() throws Exception {
        int n = manyTasks();
        Map<Long, AtomicInteger> successes = new ConcurrentHashMap<>();
        RetrySchedule fast = RetrySchedule.steppedBuilder()
                .steps(Duration.ofMillis(5))
                .maxAttempts(6)
                .build();
        List<RetryLog> logs = new ArrayList<>();
        RetryStore[] machines = {store(), machine(1), machine(2)};
        for (RetryStore s : machines) {
            logs.add(RetryLog.builder(s)
                    .handler(
                            type("job"),
                            t -> {
                                double r = ThreadLocalRandom.current().nextDouble();
                                if (r < 0.02) {
                                    throw new NonRetryableException("permanent");
                                } else if (r < 0.32) {
                                    throw new java.io.IOException("transient");
                                }
                                successes
                                        .computeIfAbsent(t.taskId().orElseThrow(), k -> new AtomicInteger())
                                        .incrementAndGet();
                            },
                            TaskOptions.custom().schedule(fast).build())
                    .config(RetryConfig.custom()
                            .workers(4)
                            .batchSize(16)
                            .pollInterval(Duration.ofMillis(50))
                            .alertSink(a -> {})
                            .build())
                    .build());
        }
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(machines[i % 3]
                    .enqueue(NewTask.of(type("job"), "t" + i, null))
                    .id());
        }
        logs.forEach(RetryLog::start);
        try {
            await().atMost(Duration.ofMinutes(2)).until(() -> {
                RetryStats s = store().stats();
                return s.count(type("job"), TaskState.SUCCEEDED) + s.count(type("job"), TaskState.BLOCKED) == n;
            });
        } finally {
            logs.forEach(RetryLog::close);
        }
        for (long id : ids) {
            RetryTask t = store().find(id).orElseThrow();
            int runs = successes.getOrDefault(id, new AtomicInteger()).get();
            if (t.state() == TaskState.SUCCEEDED) {
                assertThat(runs).as("successful runs of task %d", id).isEqualTo(1);
            } else {
                assertThat(t.state()).isEqualTo(TaskState.BLOCKED);
                assertThat(runs).isZero();
            }
        }
    }
}

package io.dupguard.memory;

import io.dupguard.LeaseLostException;
import io.dupguard.retry.ClaimedTask;
import io.dupguard.retry.Enqueued;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.RetryStats;
import io.dupguard.retry.RetryStore;
import io.dupguard.retry.RetryTask;
import io.dupguard.retry.TaskPage;
import io.dupguard.retry.TaskState;
import io.dupguard.retry.UnknownTaskException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@link RetryStore} in this JVM's memory, with the same semantics as the database ones (claims,
 * leases, guarded transitions, dedup keys), for tests and single-process use. Nothing survives a
 * restart. Time follows the given {@link Clock}. Thread-safe: every operation holds one lock.
 */
public final class InMemoryRetryStore implements RetryStore {
    private static final Comparator<Row> BY_DUE =
            Comparator.comparingLong((Row r) -> r.dueAt).thenComparingLong(r -> r.id);

    private final Clock clock;
    private final Map<Long, Row> rows = new HashMap<>();
    private final Map<String, Long> dedup = new HashMap<>();
    private final TreeSet<Row> active = new TreeSet<>(BY_DUE);
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private long lastId;

    private static final class Row {
        final long id;
        final NewTask task;
        final long createdAt;
        TaskState state = TaskState.PENDING;
        int runs;
        int base;
        long dueAt;
        String owner;
        String lastError;
        long updatedAt;

        Row(long id, NewTask task, long now) {
            this.id = id;
            this.task = task;
            this.createdAt = now;
            this.updatedAt = now;
            this.dueAt = now;
        }

        RetryTask snapshot() {
            return new RetryTask(
                    id,
                    task.type(),
                    task.taskKey(),
                    task.dedupKey(),
                    state,
                    runs - base,
                    state.isTerminal() ? null : Instant.ofEpochMilli(dueAt),
                    lastError,
                    Instant.ofEpochMilli(createdAt),
                    Instant.ofEpochMilli(updatedAt),
                    task.payload());
        }
    }

    /** An empty store on the system clock, for this JVM only. */
    public InMemoryRetryStore() {
        this(Clock.systemUTC());
    }

    /**
     * An empty store whose expiry follows {@code clock} (tests inject a controllable one).
     *
     * @param clock the clock
     * @throws NullPointerException if {@code clock} is null
     */
    public InMemoryRetryStore(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public Enqueued enqueue(NewTask task) {
        Enqueued e = insert(task, Duration.ZERO, null);
        if (e.created()) {
            listeners.forEach(Runnable::run);
        }
        return e;
    }

    @Override
    public synchronized Enqueued recordFailure(NewTask task, Duration retryDelay, String error) {
        return insert(task, retryDelay, Objects.requireNonNull(error, "error"));
    }

    private synchronized Enqueued insert(NewTask task, Duration delay, String error) {
        Objects.requireNonNull(task, "task");
        String dk = task.dedupKey() == null ? null : task.type() + '\u0000' + task.dedupKey();
        if (dk != null && dedup.containsKey(dk)) {
            return new Enqueued(dedup.get(dk), false);
        }
        long now = clock.millis();
        Row r = new Row(++lastId, task, now);
        if (error != null) {
            r.runs = 1;
            r.lastError = error;
            if (delay == null) {
                r.state = TaskState.BLOCKED;
            } else {
                r.dueAt = now + delay.toMillis();
            }
        }
        rows.put(r.id, r);
        if (!r.state.isTerminal()) {
            active.add(r);
        }
        if (dk != null) {
            dedup.put(dk, r.id);
        }
        return new Enqueued(r.id, true);
    }

    @Override
    public synchronized List<ClaimedTask> claim(String owner, int max, Duration lease) {
        long now = clock.millis();
        List<Row> due = new ArrayList<>();
        for (Iterator<Row> it = active.iterator(); it.hasNext() && due.size() < max; ) {
            Row r = it.next();
            if (r.dueAt > now) {
                break;
            }
            it.remove();
            due.add(r);
        }
        List<ClaimedTask> out = new ArrayList<>(due.size());
        for (Row r : due) {
            r.state = TaskState.RUNNING;
            r.owner = owner;
            r.runs++;
            r.dueAt = now + lease.toMillis();
            r.updatedAt = now;
            active.add(r);
            out.add(new ClaimedTask(
                    r.id, r.task.type(), r.task.taskKey(), r.task.payload(), r.runs, r.runs - r.base, owner));
        }
        return out;
    }

    @Override
    public void succeed(ClaimedTask task) {
        finish(task, TaskState.SUCCEEDED, null, null);
    }

    @Override
    public void retryLater(ClaimedTask task, Duration delay, String error) {
        finish(task, TaskState.PENDING, Objects.requireNonNull(delay, "delay"), error);
    }

    @Override
    public void block(ClaimedTask task, String error) {
        finish(task, TaskState.BLOCKED, null, error);
    }

    private synchronized void finish(ClaimedTask task, TaskState to, Duration delay, String error) {
        Row r = current(task);
        long now = clock.millis();
        active.remove(r);
        r.state = to;
        r.updatedAt = now;
        if (error != null) {
            r.lastError = error;
        }
        if (to == TaskState.PENDING) {
            r.dueAt = now + delay.toMillis();
            active.add(r);
        }
    }

    private Row current(ClaimedTask task) {
        Row r = rows.get(task.id());
        if (r == null || r.state != TaskState.RUNNING || r.runs != task.runs() || !r.owner.equals(task.owner())) {
            throw new LeaseLostException(
                    "task " + task.id(),
                    "retry task " + task.id() + " run " + task.runs() + " is no longer " + task.owner() + "'s (now "
                            + (r == null ? "gone" : r.state + " run " + r.runs) + ")");
        }
        return r;
    }

    @Override
    public synchronized int extendLeases(String owner, Collection<ClaimedTask> tasks, Duration lease) {
        long now = clock.millis();
        int n = 0;
        for (ClaimedTask t : tasks) {
            Row r = rows.get(t.id());
            if (r != null && r.state == TaskState.RUNNING && r.runs == t.runs() && owner.equals(r.owner)) {
                active.remove(r);
                r.dueAt = now + lease.toMillis();
                active.add(r);
                n++;
            }
        }
        return n;
    }

    @Override
    public synchronized Optional<RetryTask> find(long id) {
        Row r = rows.get(id);
        return r == null ? Optional.empty() : Optional.of(r.snapshot());
    }

    @Override
    public synchronized List<RetryTask> list(TaskState state, String type, TaskPage page) {
        Objects.requireNonNull(state, "state");
        List<RetryTask> out = new ArrayList<>();
        for (Row r : new TreeMap<>(rows).tailMap(page.afterId(), false).values()) {
            if (r.state == state && (type == null || type.equals(r.task.type()))) {
                out.add(r.snapshot());
                if (out.size() == page.limit()) {
                    break;
                }
            }
        }
        return out;
    }

    @Override
    public boolean unblock(long id) {
        boolean done;
        synchronized (this) {
            Row r = existing(id);
            done = r.state == TaskState.BLOCKED && reopen(r);
        }
        if (done) {
            listeners.forEach(Runnable::run);
        }
        return done;
    }

    private boolean reopen(Row r) {
        r.state = TaskState.PENDING;
        r.base = r.runs;
        r.dueAt = clock.millis();
        r.updatedAt = r.dueAt;
        active.add(r);
        return true;
    }

    @Override
    public synchronized int unblockAll(String type) {
        int n = 0;
        for (Row r : rows.values()) {
            if (r.state == TaskState.BLOCKED && (type == null || type.equals(r.task.type()))) {
                reopen(r);
                n++;
            }
        }
        return n;
    }

    @Override
    public synchronized boolean cancel(long id) {
        Row r = existing(id);
        if (r.state != TaskState.PENDING && r.state != TaskState.BLOCKED) {
            return false;
        }
        active.remove(r);
        r.state = TaskState.CANCELLED;
        r.updatedAt = clock.millis();
        return true;
    }

    private Row existing(long id) {
        Row r = rows.get(id);
        if (r == null) {
            throw new UnknownTaskException(id);
        }
        return r;
    }

    @Override
    public synchronized RetryStats stats() {
        Map<String, RetryStats.Row> byKey = new TreeMap<>();
        for (Row r : rows.values()) {
            String k = r.task.type() + '\u0000' + r.state.ordinal();
            RetryStats.Row old = byKey.get(k);
            Instant due = r.state.isTerminal() ? null : Instant.ofEpochMilli(r.dueAt);
            if (old == null) {
                byKey.put(k, new RetryStats.Row(r.task.type(), r.state, 1, due));
            } else {
                Instant oldest = due == null
                                || (old.oldestDue() != null && old.oldestDue().isBefore(due))
                        ? old.oldestDue()
                        : due;
                byKey.put(k, new RetryStats.Row(old.type(), old.state(), old.count() + 1, oldest));
            }
        }
        return new RetryStats(new ArrayList<>(byKey.values()));
    }

    @Override
    public synchronized int purgeSucceeded(Duration olderThan, int limit) {
        long cutoff = clock.millis() - olderThan.toMillis();
        int n = 0;
        for (Iterator<Row> it = rows.values().iterator(); it.hasNext() && n < limit; ) {
            Row r = it.next();
            if (r.state == TaskState.SUCCEEDED && r.updatedAt < cutoff) {
                it.remove();
                if (r.task.dedupKey() != null) {
                    dedup.remove(r.task.type() + '\u0000' + r.task.dedupKey());
                }
                n++;
            }
        }
        return n;
    }

    @Override
    public AutoCloseable onWork(Runnable listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }
}

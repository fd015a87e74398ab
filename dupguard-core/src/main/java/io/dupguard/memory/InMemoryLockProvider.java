package io.dupguard.memory;

import io.dupguard.lock.LockProvider;
import io.dupguard.lock.spi.AbstractLockProvider;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link LockProvider} in this JVM's memory, with the same semantics as the distributed ones
 * (expiry, owner tokens, fencing tokens, reentrancy). {@link #sibling()} gives another provider on
 * the same lock table, standing in for a second machine in tests. Expiry follows the given {@link
 * Clock}. Thread-safe.
 */
public final class InMemoryLockProvider extends AbstractLockProvider {
    private final Table table;

    private record Holder(String token, long expiresAtMillis) {}

    private static final class Table {
        final Clock clock;
        final ConcurrentHashMap<String, Holder> holders = new ConcurrentHashMap<>();
        final ConcurrentHashMap<String, AtomicLong> fences = new ConcurrentHashMap<>();
        final Object released = new Object();

        Table(Clock clock) {
            this.clock = clock;
        }
    }

    /** An empty provider on the system clock, for this JVM only. */
    public InMemoryLockProvider() {
        this(Clock.systemUTC());
    }

    /**
     * An empty provider whose expiry follows {@code clock} (tests inject a controllable one).
     *
     * @param clock the clock
     * @throws NullPointerException if {@code clock} is null
     */
    public InMemoryLockProvider(Clock clock) {
        this.table = new Table(Objects.requireNonNull(clock, "clock"));
    }

    private InMemoryLockProvider(Table table) {
        this.table = table;
    }

    /**
     * Another provider on the same lock table, with its own local queues and holders.
     *
     * @return a new provider sharing this one's locks, as a second JVM would
     */
    public InMemoryLockProvider sibling() {
        return new InMemoryLockProvider(table);
    }

    @Override
    protected OptionalLong tryLock(String name, String token, Duration lease) {
        long now = table.clock.millis();
        long[] fence = {0};
        table.holders.compute(name, (k, h) -> {
            if (h != null && h.expiresAtMillis > now) {
                return h;
            }
            fence[0] = table.fences.computeIfAbsent(k, x -> new AtomicLong()).incrementAndGet();
            return new Holder(token, now + lease.toMillis());
        });
        return fence[0] == 0 ? OptionalLong.empty() : OptionalLong.of(fence[0]);
    }

    @Override
    protected boolean extend(String name, String token, Duration lease) {
        long now = table.clock.millis();
        boolean[] done = {false};
        table.holders.computeIfPresent(name, (k, h) -> {
            if (!h.token.equals(token) || h.expiresAtMillis <= now) {
                return h;
            }
            done[0] = true;
            return new Holder(token, now + lease.toMillis());
        });
        return done[0];
    }

    @Override
    protected void unlock(String name, String token) {
        boolean[] done = {false};
        table.holders.computeIfPresent(name, (k, h) -> {
            if (!h.token.equals(token)) {
                return h;
            }
            done[0] = true;
            return null;
        });
        if (done[0]) {
            synchronized (table.released) {
                table.released.notifyAll();
            }
        }
    }

    @Override
    protected boolean isHeld(String name, String token) {
        Holder h = table.holders.get(name);
        return h != null && h.token.equals(token) && h.expiresAtMillis > table.clock.millis();
    }

    @Override
    protected void awaitRelease(String name, long nanos) throws InterruptedException {
        synchronized (table.released) {
            TimeUnit.NANOSECONDS.timedWait(table.released, nanos);
        }
    }

    @Override
    protected boolean notifiesReleases() {
        return true;
    }
}

package io.dupguard.lock.spi;

import java.util.concurrent.ConcurrentHashMap;

/**
 * This JVM's {@link LocalLock} per lock name, kept while any caller uses the name.
 *
 * <p>Invariants: an entry exists exactly while its {@code users} count (callers between {@link
 * #enter} and {@link #leave}: acquiring, waiting or holding) is above zero, so all callers of one
 * name share one {@link LocalLock}, and a removed one is never used again; the last user to leave
 * releases in the store a lock that was {@linkplain DirectHandOff handed} to a waiter which then
 * gave up, so no handed lock outlives its users.
 */
final class LocalLocks {
    private final ConcurrentHashMap<String, LocalLock> locals = new ConcurrentHashMap<>();
    private final AbstractLockProvider provider;

    LocalLocks(AbstractLockProvider provider) {
        this.provider = provider;
    }

    /** Counts one more user of {@code name}; every call is matched by one {@link #leave}. */
    LocalLock enter(String name) {
        return locals.compute(name, (k, v) -> {
            LocalLock l = v == null ? new LocalLock(name) : v;
            l.users++;
            return l;
        });
    }

    /** Counts one user less; the last one removes the entry and releases an orphaned handed lock. */
    void leave(String name) {
        LocalLock local = locals.get(name);
        if (locals.computeIfPresent(name, (k, v) -> --v.users == 0 ? null : v) == null && local != null) {
            DirectHandOff.Handed orphan;
            synchronized (local) {
                orphan = local.handed;
                local.handed = null;
            }
            if (orphan != null) {
                provider.unlockQuietly(name, orphan.token());
            }
        }
    }

    /**
     * What the holder runs when its outermost hold ends: opens {@code local}'s gate to the next
     * waiter and leaves, at most once however often it runs. For the releasing thread only.
     */
    Runnable passOn(LocalLock local) {
        return new Runnable() {
            private boolean done;

            @Override
            public void run() {
                if (!done) {
                    done = true;
                    local.gate.release();
                    leave(local.name);
                }
            }
        };
    }
}

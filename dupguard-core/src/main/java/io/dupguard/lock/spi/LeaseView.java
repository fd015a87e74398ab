package io.dupguard.lock.spi;

import io.dupguard.internal.Checks;
import io.dupguard.internal.Watchdog;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition — outer or reentrant — of a lock held through an {@link AbstractLockProvider}:
 * the {@link Lease} a caller gets.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>It acts only for the holding it was made for: the token, fence and {@link
 *       LocalLock#generation} it captured. Once that holder was retired as stale (another
 *       generation), closing it only tidies the store (a compare-and-delete under its own token)
 *       and never touches the gate or the hold count of the new holder.
 *   <li>It closes at most once; an inner close only counts the hold down. The outermost close stops
 *       the watchdog, then hands the lock on directly ({@link DirectHandOff}) or releases it in the
 *       store, and in every case passes the gate on exactly once ({@link LocalLocks#passOn}).
 *   <li>A holding whose watchdog renewal was lost answers "not held" and refuses to extend without
 *       asking the store.
 * </ul>
 */
final class LeaseView implements Lease {
    private static final Logger LOG = LoggerFactory.getLogger(AbstractLockProvider.class);

    private final AbstractLockProvider provider;
    private final LocalLock local;
    private final String token;
    private final long fence;
    private final int generation;
    private boolean closed; // guarded by local

    LeaseView(AbstractLockProvider provider, LocalLock local) {
        this.provider = provider;
        this.local = local;
        synchronized (local) {
            this.token = local.token;
            this.fence = local.fence;
            this.generation = local.generation;
        }
    }

    @Override
    public String name() {
        return local.name;
    }

    @Override
    public long fencingToken() {
        return fence;
    }

    @Override
    public boolean extend(Duration leaseTime) {
        Checks.between(leaseTime, LockOptions.MIN_LEASE, LockOptions.MAX_DURATION, "leaseTime");
        synchronized (local) {
            if (closed || token.equals(local.lostToken)) {
                return false;
            }
        }
        long sent = System.nanoTime();
        boolean extended = provider.extend(local.name, token, leaseTime);
        if (extended) {
            synchronized (local) {
                if (local.generation == generation && local.holderExpiresNanos != Long.MAX_VALUE) {
                    local.holderExpiresNanos = sent + leaseTime.toNanos(); // the fixed lease moved
                }
            }
        }
        return extended;
    }

    @Override
    public boolean isHeld() {
        synchronized (local) {
            if (closed || token.equals(local.lostToken)) {
                return false; // a lost watchdog lease is not asked about again
            }
        }
        return provider.isHeld(local.name, token);
    }

    @Override
    public void close() {
        Watchdog.Renewal renewal;
        boolean inner;
        boolean abandoned;
        synchronized (local) {
            if (closed) {
                return;
            }
            closed = true;
            abandoned = local.generation != generation;
            inner = !abandoned && --local.holds > 0;
            if (inner || abandoned) {
                renewal = null;
            } else {
                local.owner = null;
                renewal = local.renewal;
                local.renewal = null;
            }
        }
        if (inner) {
            provider.locals.leave(local.name); // an inner hold of a reentrant lock: the outer one still holds it
            return;
        }
        if (abandoned) {
            // Our gate was taken over after our lease ran out; only tidy the store (a no-op
            // compare-and-delete unless nobody took the lock since).
            try {
                provider.unlock(local.name, token);
            } catch (RuntimeException e) {
                LOG.debug("could not release abandoned lock '{}'", local.name, e);
            } finally {
                provider.locals.leave(local.name);
            }
            return;
        }
        if (renewal != null) {
            renewal.stop();
        }
        if (provider.handOff.offer(local, token)) {
            return;
        }
        Runnable passOn = provider.locals.passOn(local);
        try {
            provider.unlock(local.name, token, passOn);
        } catch (RuntimeException e) {
            // The lease expires on its own; the caller's work already finished.
            LOG.warn("could not release lock '{}'; it will expire", local.name, e);
        } finally {
            passOn.run(); // no-op if the backend already ran it
        }
    }

    @Override
    public String toString() {
        return "Lease[" + local.name + ", fence=" + fence + "]";
    }
}

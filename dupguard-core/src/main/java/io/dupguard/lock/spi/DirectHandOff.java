package io.dupguard.lock.spi;

import io.dupguard.internal.Checks;
import io.dupguard.lock.LockOptions;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * Direct hand-off between threads of this JVM, for backends that {@linkplain
 * AbstractLockProvider#transfersLocally() transfer}: when a holder closes while another thread of
 * this JVM waits for the same name, the lock is moved in the store straight to a fresh owner token,
 * with a new lease and the next fencing token (one store operation instead of a release and an
 * acquisition one after the other), and the next waiter starts holding it.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>A {@link Handed} lock is held in the store under its own fresh token and by no lease view;
 *       each name has at most one ({@link LocalLock#handed}). It is taken by the waiter that gets
 *       the gate next, or — if every local waiter gives up first — released by the last user to
 *       leave ({@link LocalLocks#leave}).
 *   <li>At most {@value AbstractLockProvider#MAX_LOCAL_HANDOFFS} hand-offs follow each other
 *       ({@link LocalLock#streak}); then the lock is released in the store, so that waiters in
 *       other JVMs get their chance.
 *   <li>A transfer whose outcome is unknown (it threw) is undone by releasing under the new token;
 *       the holder then releases as usual under its own.
 * </ul>
 */
final class DirectHandOff {
    /** A lock held in the store under {@code token} since {@code leaseStartNanos}, for the next waiter. */
    record Handed(String token, long fence, long leaseStartNanos, Duration lease) {}

    private final AbstractLockProvider provider;
    private final LocalLocks locals;

    DirectHandOff(AbstractLockProvider provider, LocalLocks locals) {
        this.provider = provider;
        this.locals = locals;
    }

    /**
     * The lock a closing holder of this JVM handed on, now the calling gate owner's (its token
     * becomes {@link LocalLock#pendingToken}); null if there is none, or if it ran out before this
     * caller came (then the usual acquisition follows). A lease different from this caller's, or
     * half spent, is reset to this caller's with one extend.
     */
    Handed take(LocalLock local, LockOptions options) {
        Handed h;
        synchronized (local) {
            h = local.handed;
            local.handed = null;
        }
        if (h == null) {
            return null;
        }
        local.pendingToken = h.token();
        Duration lease = options.effectiveLease();
        long leaseNanos = Checks.saturatedNanos(lease);
        if (h.lease().equals(lease) && System.nanoTime() - h.leaseStartNanos() < leaseNanos / 2) {
            return h;
        }
        long resetAt = System.nanoTime();
        boolean extended;
        try {
            extended = provider.extend(local.name, h.token(), lease);
        } catch (RuntimeException e) {
            provider.unlockQuietly(local.name, h.token());
            throw e;
        }
        return extended ? new Handed(h.token(), h.fence(), resetAt, lease) : null;
    }

    /**
     * Closing the outermost hold of {@code token} while another thread of this JVM waits: moves the
     * lock in the store to a fresh token for that waiter and opens the gate. False if the lock
     * cannot be handed (not a transferring backend, nobody waiting, the streak is long enough, or
     * this holder's lease ran out): then the caller releases as usual.
     */
    boolean offer(LocalLock local, String token) {
        if (!provider.transfersLocally()) {
            return false;
        }
        Duration lease;
        synchronized (local) {
            if (local.streak >= AbstractLockProvider.MAX_LOCAL_HANDOFFS || !local.gate.hasQueuedThreads()) {
                local.streak = 0;
                return false;
            }
            lease = local.lease;
        }
        String next = LockTokens.next();
        long sentAt = System.nanoTime();
        OptionalLong fence;
        try {
            fence = provider.transfer(local.name, token, next, lease);
        } catch (RuntimeException e) {
            // Unknown whether it moved: release under both tokens (each a no-op if not the holder).
            provider.unlockQuietly(local.name, next);
            return false;
        }
        if (fence.isEmpty()) {
            return false;
        }
        synchronized (local) {
            local.handed = new Handed(next, fence.getAsLong(), sentAt, lease);
            local.streak++;
        }
        locals.passOn(local).run();
        return true;
    }
}

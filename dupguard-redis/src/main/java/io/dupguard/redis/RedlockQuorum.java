package io.dupguard.redis;

import io.dupguard.StoreUnavailableException;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The Redlock algorithm of {@link RedlockProvider} (see its Javadoc for the steps and why fencing
 * tokens increase): each operation is sent to every node at once and decided by a quorum. Every
 * request is bounded by the node timeout; a node that has not answered by then counts as failed.
 * Thread-safe; holds no state per lock.
 */
final class RedlockQuorum implements AutoCloseable {
    private static final byte[] NO_WAITER_FLAG = {'0'};
    private static final Predicate<Long> ACQUIRED = v -> v != null && v > 0;
    private static final Duration MAX_DURATION = Duration.ofDays(365);
    /** Longest wait for connections to open before a request (the client's connect timeout). */
    static final Duration CONNECT_WAIT = Duration.ofSeconds(10);

    private final List<RedlockNode> nodes;
    private final int quorum;
    private final LockKeys keys;
    private final Duration nodeTimeout; // null: min(50 ms, lease / 10)
    private final double driftFactor;

    RedlockQuorum(List<RedlockNode> nodes, LockKeys keys, Duration nodeTimeout, double driftFactor) {
        this.nodes = nodes;
        this.quorum = nodes.size() / 2 + 1;
        this.keys = keys;
        this.nodeTimeout = nodeTimeout;
        this.driftFactor = driftFactor;
    }

    int quorum() {
        return quorum;
    }

    List<RedlockNode> nodes() {
        return nodes;
    }

    OptionalLong lock(String name, String token, Duration lease) {
        awaitConnections();
        long start = System.nanoTime();
        long leaseNanos = nanos(lease);
        long timeout = nodeTimeoutNanos(leaseNanos);
        String[] lockKeys = {keys.lock(name), keys.fence(name), keys.waiters(name)};
        byte[][] args = {LockScripts.utf8(token), LockScripts.millis(lease), LockScripts.fenceFloor(), NO_WAITER_FLAG};
        QuorumCall<Long> locks =
                QuorumCall.send(nodes, n -> n.eval(LockScripts.LOCK, ScriptOutputType.INTEGER, lockKeys, args));
        String failure;
        try {
            locks.await(start + timeout, decided(ACQUIRED));
            if (locks.count(ACQUIRED) < quorum) {
                // Classified by the answers in time; later ones must not change the verdict.
                int answered = locks.answered();
                String missing = locks.failures();
                releaseEverywhere(name, token);
                if (answered < quorum) {
                    throw unavailable(name, "only " + answered + " of " + nodes.size() + " nodes answered", missing);
                }
                return OptionalLong.empty(); // another owner holds it on enough nodes
            }
            long fence = locks.indexes(ACQUIRED).stream()
                    .mapToLong(locks::value)
                    .max()
                    .orElseThrow();
            if (recordFence(name, locks, fence, timeout) < quorum) {
                failure = "could not record fencing token " + fence + " on a majority";
            } else {
                long validity = validityNanos(leaseNanos, System.nanoTime() - start, driftFactor);
                if (validity > 0) {
                    return OptionalLong.of(fence);
                }
                failure = "acquiring took " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
                        + " ms, leaving no validity of the " + lease.toMillis() + " ms lease";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            releaseEverywhere(name, token);
            return OptionalLong.empty();
        }
        releaseEverywhere(name, token);
        throw unavailable(name, failure, "");
    }

    /** Raises lagging counters to {@code fence}; returns how many nodes now hold at least it. */
    private int recordFence(String name, QuorumCall<Long> locks, long fence, long timeout) throws InterruptedException {
        int atFence = locks.count(v -> v != null && v == fence);
        List<RedlockNode> behind = locks.indexes(v -> ACQUIRED.test(v) && v < fence).stream()
                .map(nodes::get)
                .toList();
        if (atFence >= quorum || behind.isEmpty()) {
            return atFence;
        }
        String[] fenceKey = {keys.fence(name)};
        byte[] value = LockScripts.utf8(Long.toString(fence));
        QuorumCall<Long> raised = QuorumCall.send(
                behind, n -> n.eval(LockScripts.RAISE_FENCE, ScriptOutputType.INTEGER, fenceKey, value));
        raised.await(System.nanoTime() + timeout, q -> atFence + q.answered() >= quorum);
        return atFence + raised.answered();
    }

    // No waiting for connections here: the watchdog's one shared thread renews every lease of the
    // JVM, and must not stall behind a node that is slow to connect.
    boolean extend(String name, String token, Duration lease) {
        long start = System.nanoTime();
        long leaseNanos = nanos(lease);
        String[] lockKey = {keys.lock(name)};
        byte[] owner = LockScripts.utf8(token);
        byte[] millis = LockScripts.millis(lease);
        Predicate<Long> extended = v -> v != null && v == 1L;
        QuorumCall<Long> calls = QuorumCall.send(
                nodes, n -> n.eval(LockScripts.EXTEND, ScriptOutputType.INTEGER, lockKey, owner, millis));
        await(calls, start + nodeTimeoutNanos(leaseNanos), extended);
        if (calls.count(extended) >= quorum) {
            return validityNanos(leaseNanos, System.nanoTime() - start, driftFactor) > 0;
        }
        if (calls.answered() < quorum) {
            throw unavailable(name, "could not extend on a majority", calls.failures());
        }
        return false;
    }

    void unlock(String name, String token) {
        QuorumCall<Long> calls = releaseEverywhere(name, token);
        if (calls.answered() < quorum) {
            throw unavailable(
                    name,
                    "release confirmed by " + calls.answered() + " of " + nodes.size() + " nodes",
                    calls.failures());
        }
    }

    boolean isHeld(String name, String token) {
        String key = keys.lock(name);
        byte[] owner = LockScripts.utf8(token);
        Predicate<byte[]> ours = v -> Arrays.equals(v, owner);
        awaitConnections();
        QuorumCall<byte[]> calls = QuorumCall.send(nodes, n -> n.get(key));
        await(calls, System.nanoTime() + requestTimeoutNanos(), ours);
        if (calls.count(ours) >= quorum) {
            return true;
        }
        if (calls.answered() < quorum) {
            throw unavailable(name, "could not ask a majority", calls.failures());
        }
        return false;
    }

    /**
     * Waits until a quorum of nodes is connected (or can no longer be), up to {@link
     * #CONNECT_WAIT}. Opening a connection (first use, reconnect, a cold JVM loading Netty) is not
     * what the node timeout is about, and must not fail the first acquisitions after a start.
     */
    private void awaitConnections() {
        int open = 0;
        for (RedlockNode node : nodes) {
            open += node.connected() ? 1 : 0;
        }
        if (open < quorum) {
            var connects = QuorumCall.send(nodes, RedlockNode::connection);
            await(connects, System.nanoTime() + CONNECT_WAIT.toNanos(), c -> true);
        }
    }

    /** Sends the release to every node; waits until every node answered or the node timeout. */
    private QuorumCall<Long> releaseEverywhere(String name, String token) {
        String[] unlockKeys = {keys.lock(name), keys.waiters(name)};
        byte[] owner = LockScripts.utf8(token);
        byte[] channel = LockScripts.utf8(keys.channel(name));
        awaitConnections();
        QuorumCall<Long> calls = QuorumCall.send(
                nodes, n -> n.eval(LockScripts.UNLOCK, ScriptOutputType.INTEGER, unlockKeys, owner, channel));
        if (Thread.currentThread().isInterrupted()) {
            return calls; // sent; an interrupted caller does not wait for the answers
        }
        try {
            // All, not just a quorum: a node still holding the old key would make the next
            // acquirer's vote split whenever another node is slow.
            calls.await(System.nanoTime() + requestTimeoutNanos(), q -> false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return calls;
    }

    /** Waits until the answers decide (see {@link #decided}); an interrupt ends the wait. */
    private <T> void await(QuorumCall<T> calls, long deadline, Predicate<T> yes) {
        try {
            calls.await(deadline, decided(yes));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The answers so far decide the outcome: a quorum said yes; or no quorum can say yes any more
     * and it is also settled whether a quorum answered at all — "no" from a majority (the lock is
     * someone else's) must not be reported as an outage just because the last answers were slow.
     */
    private <T> Predicate<QuorumCall<T>> decided(Predicate<T> yes) {
        return q -> {
            int agreed = q.count(yes);
            int answered = q.answered();
            int pending = q.pending();
            return agreed >= quorum
                    || (agreed + pending < quorum && (answered >= quorum || answered + pending < quorum));
        };
    }

    /**
     * What is left of a lease after {@code elapsed}: {@code lease − elapsed − (lease × factor + 2 ms)}.
     * Positive means every node that took the lock still holds it, even if its clock runs fast.
     */
    static long validityNanos(long leaseNanos, long elapsedNanos, double driftFactor) {
        long drift = (long) (leaseNanos * driftFactor) + RedlockProvider.DRIFT_MARGIN.toNanos();
        return leaseNanos - elapsedNanos - drift;
    }

    /** The per-node timeout for a lease: the configured one, else {@code min(50 ms, lease / 10)}. */
    long nodeTimeoutNanos(long leaseNanos) {
        return nodeTimeout != null
                ? nanos(nodeTimeout)
                : Math.max(1, Math.min(RedlockProvider.DEFAULT_MAX_NODE_TIMEOUT.toNanos(), leaseNanos / 10));
    }

    private long requestTimeoutNanos() {
        return nanos(nodeTimeout != null ? nodeTimeout : RedlockProvider.DEFAULT_MAX_NODE_TIMEOUT);
    }

    private StoreUnavailableException unavailable(String name, String what, String failures) {
        return new StoreUnavailableException(
                "redlock",
                "lock '" + name + "': " + what + " (quorum " + quorum + " of " + nodes.size() + ")"
                        + (failures.isEmpty() ? "" : "; " + failures),
                null);
    }

    // Capped, so that "now + timeout" cannot overflow.
    private static long nanos(Duration d) {
        return d.compareTo(MAX_DURATION) > 0 ? MAX_DURATION.toNanos() : d.toNanos();
    }

    @Override
    public void close() {
        nodes.forEach(RedlockNode::close);
    }
}

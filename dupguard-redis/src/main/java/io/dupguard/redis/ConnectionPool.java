package io.dupguard.redis;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Connections for one caller at a time, opened on demand and kept for reuse: as many as callers
 * ever needed one at once. Used for a write followed by {@code WAIT}, which blocks its connection on
 * the server until the replicas answer: on the shared connection it would hold back every other
 * thread's commands. {@link #close()} closes every connection, borrowed or idle, as closing a store
 * closes its shared connection under a call in flight. Thread-safe.
 */
final class ConnectionPool<C> implements AutoCloseable {
    private final Supplier<C> opener;
    private final Consumer<C> closer;
    private final ConcurrentLinkedDeque<C> idle = new ConcurrentLinkedDeque<>();
    private final Set<C> all = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    ConnectionPool(Supplier<C> opener, Consumer<C> closer) {
        this.opener = opener;
        this.closer = closer;
    }

    /** An idle connection, or a new one; {@link #giveBack} it when done. */
    C borrow() {
        if (closed) {
            throw new IllegalStateException("the Redis store was closed");
        }
        C c = idle.pollFirst(); // the most recently used: the others may go idle for good
        if (c != null) {
            return c;
        }
        C opened = opener.get();
        all.add(opened);
        if (closed) { // close() may have run since the check above and missed it
            discard(opened);
            throw new IllegalStateException("the Redis store was closed");
        }
        return opened;
    }

    void giveBack(C c) {
        idle.addFirst(c);
        if (closed) {
            discard(c);
        }
    }

    private void discard(C c) {
        if (all.remove(c)) {
            idle.remove(c);
            closer.accept(c);
        }
    }

    @Override
    public void close() {
        closed = true;
        for (C c : all) {
            discard(c);
        }
    }
}
